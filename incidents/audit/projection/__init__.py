"""Project full Kubernetes objects to the slim dicts the checks read.

The client projects every object while paging, so memory grows with the number of objects and not
with their size (managedFields, last-applied annotations, big ConfigMaps never stay in memory).
Projection is idempotent: projecting a projected object gives the same object, so snapshots and
test fixtures may hold either full or projected objects. Each kind's projector is named by its
:class:`~incidents.audit.kindspec.KindSpec` (workload kinds: in their adapter, :mod:`..workloads`);
:func:`incidents.audit.kinds.project` applies it.

Environment variables are kept only for the names checks read (NCCL_*, TORCH_*, DP_*, checkpoint
paths); every other variable is dropped, so a snapshot does not carry credentials passed in env.

:data:`PROJECTION_VERSION` is written into every snapshot; a snapshot with the current one is read
as it is, an older one is projected again on reading. Raise it whenever a projector keeps less
(or differently shaped) data than before.
"""

PROJECTION_VERSION = 2  # 2: env values only for the settings checks compare
