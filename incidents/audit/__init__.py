"""kubegap: a read-only audit of a Kubernetes GPU cluster for gaps that public incidents show.

Importable and runnable without Django or a database.
"""

__version__ = "0.1.0"
