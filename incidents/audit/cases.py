# ruff: noqa: E501
"""Library cases kubegap checks cite: slug -> title, organisation and a short summary.

Derived from the project's research notes (the case titles and summaries of the seeded library),
so findings carry titles and links without a database. A test keeps these slugs in step with
``fixtures/cases/<slug>.yaml``.
"""

from __future__ import annotations

from typing import NamedTuple


class CaseInfo(NamedTuple):
    title: str
    organisation: str
    summary: str


CASES: dict[str, CaseInfo] = {
    "acme-seren-kalos-pretraining-failures": CaseInfo(
        "Shanghai AI Laboratory Acme: pretraining jobs on the Seren and Kalos clusters fail mid-run and restart from checkpoints",
        "Shanghai AI Laboratory",
        "Over six months in 2023, LLM pretraining jobs on the Seren and Kalos clusters (4,704 A100 GPUs) failed repeatedly mid-run and were restarted by hand from the last checkpoint. Infrastructure failures were 11% of failed jobs by count but over 82% of their GPU time; stalled jobs were noticed only by hand, faulty nodes were found with NCCL allgather tests and cordoned, and overheating caused NVLink and ECC errors.",
    ),
    "acme-llm-dev-infra-failures": CaseInfo(
        "Shanghai AI Lab Acme datacenter: infrastructure failures dominate lost GPU time in LLM development",
        "Shanghai AI Laboratory",
        "Characterisation of a six-month LLM-development trace from the Acme datacenter. Roughly 40% of jobs failed. Failures from infrastructure were few in number but hit long, large pretraining jobs mid-run, so they accounted for most of the GPU time lost to failures; script/framework errors were numerous but cheap because they fail at start-up.",
    ),
    "acme-kalos-overheating-jul2023": CaseInfo(
        "Acme Kalos cluster: GPU overheating while training 7B models causes NVLink and ECC errors",
        "Shanghai AI Laboratory",
        "In the Kalos cluster, 7B-model training runs with highly optimised communication kept GPUs almost never idle; GPUs overheated and jobs failed with NVLinkError or ECCError. Most such failures occurred in July 2023, reported as the hottest month on record, and server-room temperature rose about 5 C during these runs.",
    ),
    "meta-llama3-405b-interruptions": CaseInfo(
        "Meta Llama 3 405B pretraining: 419 unexpected interruptions in 54 days on 16K H100s",
        "Meta",
        "During a 54-day window of Llama 3 405B pretraining on up to 16,384 H100 80GB GPUs, the job saw 466 interruptions: 47 planned (firmware/maintenance/config) and 419 unexpected. Most unexpected interruptions were hardware-related, led by faulty GPUs and HBM3 memory. Automation handled all but three that needed significant manual intervention, and effective training time stayed above 90%.",
    ),
    "meta-llama3-power-thermal-effects": CaseInfo(
        "Meta Llama 3 405B: diurnal throughput swing and tens-of-MW power transients",
        "Meta",
        "Two environmental effects degraded rather than broke training: throughput varied 1-2% with time of day because mid-day heat changed GPU dynamic voltage/frequency scaling, and synchronised idle/busy transitions of tens of thousands of GPUs (checkpointing, collective waits, job start/stop) produced datacenter power swings on the order of tens of megawatts, stressing the grid.",
    ),
    "meta-opt175b-hardware-restarts": CaseInfo(
        "Meta OPT-175B: dozens of restarts from bad cloud nodes, ECC errors and hung checkpoint downloads",
        "Meta AI",
        "Training OPT-175B on 1,024 80GB A100s on a cloud provider suffered ~90 restarts across the final run lineage. Most restarts came from hardware failures (ECC errors, lost GPUs, NCCL/IB issues) and the inability to quickly swap in replacement nodes; cloud replacement often took hours and sometimes returned the same bad machine. Restarting also required downloading a 1.6 TB checkpoint, which hung nondeterministically.",
    ),
    "meta-opt175b-cloud-cluster-deletion": CaseInfo(
        "Meta OPT-175B: cloud provider support accidentally deletes the whole training cluster",
        "Meta AI",
        "While replenishing a requested pool of 12 buffer nodes before the holidays, the cloud provider's support team deleted the entire OPT-175B cluster. It was restored fairly quickly but came back with 16 machines failing Meta's infrastructure checks; escalation restored the minimum machine count by end of day and the buffer pool by Dec 23, though the cluster stayed somewhat unstable over Christmas.",
    ),
    "bigscience-bloom176b-gpu-crash-hang": CaseInfo(
        "BigScience BLOOM-176B: GPU crashes cost hours of work and crashed jobs hung instead of exiting",
        "BigScience / Hugging Face on the Jean Zay",
        "A GPU failure (c10::CUDAError 'unknown error' raised from the NCCL work cleanup loop) killed the 176B run two iterations before a scheduled checkpoint, losing 7.3 hours. Hardware GPU failures then recurred roughly weekly. Sometimes a crashed process left the SLURM job hanging rather than exiting, which blocked auto-restart and required someone watching 24/7.",
    ),
    "bigscience-bloom176b-eval-dataloader-deadlock": CaseInfo(
        "BigScience BLOOM-176B: evaluation-stage deadlock in the PyTorch DataLoader hangs training for hours",
        "BigScience / Hugging Face",
        "At iteration 45,000 the run stuck after the first eval dataset: GPUs at 100%, no NCCL or distributed timeout, for at least 3 hours. Stack dumps showed one rank blocked waiting on a DataLoader worker queue while peers sat in broadcast/all_reduce. A DeepSpeed branch rebase had changed timing; rolling back helped, a barrier before eval helped temporarily, but the hang recurred. Root cause was a race in PyTorch's DataLoader worker startup (lock copied into a new worker and never released).",
    ),
    "bytedance-megascale-nic-flapping": CaseInfo(
        "ByteDance MegaScale: NIC link flapping causes training stalls and premature NCCL timeouts",
        "ByteDance",
        "In MegaScale production training, network interfaces occasionally went down and came back within seconds, dropping all in-flight packets. With default settings NCCL timed out and returned a completion error before the NIC came back up, crashing or stalling training. Root cause was poor link quality across the NIC-AOC cable-switch path.",
    ),
    "bytedance-megascale-mfu-decline-stragglers": CaseInfo(
        "ByteDance MegaScale: slow hosts and garbage-collection jitter erode MFU over a long run",
        "ByteDance",
        "CUDA-event timing showed certain hosts took ~10% longer for identical forward computation across experiments; removing them gained ~0.7% MFU. Separately, MFU declined steadily as training progressed: forward/backward/optimizer times were flat but the final data-parallel reduce-scatter started late on some ranks. The skew came from code on the critical path, e.g. irregular Python garbage collection and some PyTorch operations, and grew over steps.",
    ),
    "bytedance-byterobust-failure-characterization": CaseInfo(
        "ByteDance ByteRobust: a failure roughly every 2.8 hours on 10K-GPU jobs; implicit failures are the hard part",
        "ByteDance",
        "ByteDance's LLM-training management system reports that at 9,600-16,384-GPU scale, training failed about every 2.78 hours. Over three months it logged tens of thousands of explicit failures (CUDA errors, OOM, network faults) and thousands of implicit ones (hangs, silent data corruption, MFU degradation). The design favours fast isolation and over-eviction of suspects over precise root-causing.",
    ),
    "alibaba-unicron-failure-taxonomy": CaseInfo(
        "Alibaba Unicron: failure mix of LLM training tasks on a cloud platform",
        "Alibaba Group",
        "Motivating analysis for Unicron, a self-healing workload manager for Megatron training: a large share of LLM training tasks on Alibaba's platform ended abnormally, NCCL timeouts were the single largest cause, and most errors were transient enough to be fixed by restart, yet restart-based recovery cost tens of minutes each time.",
    ),
    "alibaba-falcon-fail-slow": CaseInfo(
        "Alibaba FALCON: fail-slow stragglers stretch average job time 1.34x in a 10K-GPU cluster",
        "HKUST",
        "A characterisation study of a shared production cluster with more than 10,000 GPUs found fail-slows (stragglers) caused by CPU/GPU computation issues and cross-node networking problems, lasting from tens of seconds to nearly ten hours. They lengthened average job completion time by 1.34x. Operators typically detected them manually and treated them as fail-stops via checkpoint-and-restart.",
    ),
    "alibaba-c4-error-downtime": CaseInfo(
        "Alibaba C4: slow fault localisation wastes ~30% of LLM training time on a hyperscale cloud",
        "Alibaba Group",
        "Alibaba found that in bulk-synchronous LLM training any local hardware fault halts the whole job, and that finding the faulty component took hours to days, while ECMP hashing of few, long-lived collective flows caused traffic collisions. C4 exploits the periodic, homogeneous collective pattern to localise anomalies within tens of seconds and plans traffic paths.",
    ),
    "meta-rsc-reliability-study": CaseInfo(
        "Meta RSC-1/RSC-2: 11 months, 4M jobs, MTTF of a 1,024-GPU job under 8 hours",
        "Meta",
        "Analysis of two A100 research clusters (RSC-1, 16K GPUs, general ML/LLM; RSC-2, 8K GPUs, vision) over 11 months with >150M GPU-hours and 4M jobs. Large jobs are most exposed: a 1,024-GPU job's mean time to failure was 7.9 hours versus 47.7 days for 8-GPU jobs. InfiniBand links, filesystem mounts, GPU memory errors and PCIe errors were prominent failure attributions; one summer-2024 spike of IB failures came from a handful of nodes.",
    ),
    "meta-ft-hsdp-100k-gpu": CaseInfo(
        "Meta FT-HSDP: synchronous training on ~100K GPUs spends over half its time stalled on failure recovery",
        "Meta Platforms",
        "Meta reports that fully synchronous training at O(100K) GPUs was inefficient because failures were frequent and each recovery stalled the whole job for ~10 minutes, giving only ~44% effective training time. Fault-Tolerant HSDP treats each data-parallel replica as the unit of failure so only the affected replica restarts while others continue.",
    ),
    "microsoft-philly-dl-job-failures": CaseInfo(
        "Microsoft Philly: DL job failures mostly user/platform-interaction errors, yet infrastructure failures are costly",
        "Microsoft Research / Microsoft",
        "Two Microsoft studies of the Philly deep-learning platform. The ATC '19 trace study found gang scheduling and locality constraints drive queueing and low utilisation, and that failed jobs waste GPU time, often late in execution. The ICSE '20 study of 4,960 real job failures found nearly half occurred in the interaction with the platform (e.g., mismatched local vs platform environments) rather than in model code.",
    ),
    "microsoft-superbench-gray-failures": CaseInfo(
        "Microsoft Azure SuperBench: hardware redundancy hides gray failures that degrade AI workloads",
        "Microsoft",
        "Redundant components (spare memory rows, redundant links) keep nodes 'up' while silently degrading end-to-end AI performance, which complicates incident root-causing. SuperBench runs a benchmark suite of component and end-to-end workloads, learns pass criteria to pinpoint defective components, and schedules validation to balance cost against incident risk.",
    ),
    "nvidia-dgxcloud-nemotron-training": CaseInfo(
        "NVIDIA DGX Cloud: failure taxonomy from Nemotron training campaigns at 2K-10K GPUs",
        "NVIDIA",
        "NVIDIA describes failures met while training Llama Nemotron and other models on DGX Cloud and the automation used to reach under 1% hardware downtime. Errors fall into immediate crashes (BIOS, power/thermal, uncorrectable ECC, NaN-producing silent corruption, link flapping), hangs in communication libraries (PyTorch NCCL watchdog errors, Transformer Engine communication hangs, often cascading from filesystem or E/W network dependencies), and speed regressions (transient slowdowns and persistent stragglers).",
    ),
    "google-gemini-sdc": CaseInfo(
        "Google Gemini Ultra training: silent data corruption every week or two at TPU fleet scale",
        "Google DeepMind / Google",
        "Training Gemini Ultra on TPUv4 SuperPods (4,096 chips each) across datacenters made hardware failures commonplace. Google kept a few cubes per SuperPod as hot standbys, replaced periodic checkpointing to persistent storage with redundant in-memory copies of model state for fast recovery, and found silent data corruption frequent enough (expected every week or two) to require deterministic replay to isolate faulty hardware and proactive SDC scanners.",
    ),
    "meta-cpu-silent-data-corruption": CaseInfo(
        "Meta: defective CPUs silently compute wrong results, dropping rows from a database pipeline",
        "Meta",
        "A datacenter CPU occasionally returned 0 when computing a compressed file's size during decompression in a Spark-based pipeline. Because size 0 meant 'empty', files were skipped and rows silently went missing from the output database. Fleet-wide testing across hundreds of thousands of machines found hundreds of CPUs with silent errors.",
    ),
    "google-palm-loss-spikes": CaseInfo(
        "Google PaLM 540B: ~20 loss spikes during training mitigated by rollback and batch skipping",
        "Google Research",
        "The 540B model showed loss spikes about 20 times despite gradient clipping, at irregular intervals, sometimes late in training; smaller models did not. The team restarted from a checkpoint ~100 steps before each spike and skipped ~200-500 batches. Replaying the same batches from a different checkpoint did not spike, suggesting spikes arise from the combination of particular data and a particular parameter state rather than bad data alone.",
    ),
    "ai2-olmo-lumi-bringup": CaseInfo(
        "AI2 OLMo on LUMI: node start-up failures, interconnect queue overflows and failing checkpoint storage",
        "Allen Institute for AI",
        "Early large runs on LUMI hit repeated infrastructure problems: GPUs in inconsistent states and nodes missing from rendezvous or hanging at start-up; low-level RCCL/driver failures printed only to stdout/stderr; Slingshot interconnect failures reporting 'Cassini Event Queue overflow'; and a fast network drive for checkpoints that started consistently failing writes. Starting a 64-node job often took 30+ minutes of excluding failing nodes one at a time.",
    ),
    "lablup-b200-checkpoint-io": CaseInfo(
        "SKT/Upstage/Lablup B200 cluster: 60-node storage I/O bottleneck invisible in small tests",
        "Lablup",
        "A shared monitoring pipeline across five organisations surfaced a checkpoint I/O bottleneck that appeared only at ~60-node scale, not in 2-4-node tests. Checkpoint loads on restart and save bursts used only a fraction of the NFS storage bandwidth while NFS/RPC request queues and transport backlog rose. Node exclusions were concentrated on a few nodes, and automatic retry chains recovered more often than manual restarts.",
    ),
    "openai-2024-12-11-telemetry-control-plane": CaseInfo(
        "OpenAI: new telemetry service overloads Kubernetes API servers, DNS breaks, all products down ~4 h",
        "OpenAI",
        "A newly deployed telemetry service, meant to improve control-plane observability, made every node in each cluster run expensive Kubernetes API operations whose cost grew with cluster size. In the largest clusters the API servers collapsed. The data plane kept serving briefly, but DNS-based service discovery depends on the control plane; once node DNS caches expired over ~20 minutes, services could not find each other. Engineers were locked out of the control plane they needed to roll back the change.",
    ),
    "openai-2024-11-25-namespace-labels": CaseInfo(
        "OpenAI: global Kubernetes namespace-label change overwhelms control planes of three largest GPU clusters",
        "OpenAI",
        "A fleet-wide change to Kubernetes namespace labels triggered the networking layer to recompute metadata. It was safe on small clusters but overwhelmed the control planes of the three largest GPU clusters, causing cascading failures, high latency and errors. Moving workloads out was hard because those control planes were unresponsive.",
    ),
    "openai-2024-04-10-control-plane-memory": CaseInfo(
        "OpenAI: control-plane service memory exhaustion cascades; failover overloads a second cluster",
        "OpenAI",
        "A control-plane service for one ChatGPT cluster degraded from memory exhaustion, cascading into failures across services. Shifting traffic to a healthy cluster and scaling it up caused that cluster to fail too, because the added pods increased calls to its control-plane service. Emergency rate limiting then showed users a misleading error message.",
    ),
    "openai-2023-10-19-redis-auth-cache": CaseInfo(
        "OpenAI: Redis authentication-cache shard failures cause up to 70% API errors",
        "OpenAI",
        "Redis shards backing the authentication cache failed while the cache was already under high load, making it largely unresponsive. Authentication was not resilient to cache failure, so many requests timed out; because the system is keyed by user, some customers saw all requests fail while others were unaffected.",
    ),
    "openai-2023-03-20-redis-py": CaseInfo(
        "OpenAI ChatGPT: redis-py cancellation bug leaks other users' chat titles and partial payment data",
        "OpenAI",
        "Requests cancelled after being sent on a pooled asyncio Redis connection left the connection in a corrupted state; the next request on that connection could receive data belonging to another user. Some users saw other users' conversation titles (and possibly the first message of new conversations). The same bug may have exposed name, email, payment address, card type, last four digits and expiry for 1.2% of ChatGPT Plus subscribers active in a nine-hour window. ChatGPT was taken offline and patched.",
    ),
    "anthropic-2025-context-routing": CaseInfo(
        "Anthropic: short-context Claude Sonnet 4 requests misrouted to 1M-context servers; sticky routing amplifies",
        "Anthropic",
        "A routing bug sent some Sonnet 4 requests to server pools configured for the upcoming 1M-token context window, which produced lower-quality answers on short prompts. Initially about 0.8% of requests; a routine load-balancing change on Aug 29 raised the share sharply. Because routing is sticky, affected users kept hitting the wrong servers.",
    ),
    "anthropic-2025-tpu-output-corruption": CaseInfo(
        "Anthropic: TPU server misconfiguration corrupts token sampling (e.g., Thai/Chinese characters in English replies)",
        "Anthropic",
        "A misconfiguration deployed to Claude API TPU servers caused a runtime performance optimisation to occasionally assign high probability to tokens that should almost never occur, producing stray Thai/Chinese characters in English answers or syntax errors in code. Affected Opus 4.1/Opus 4 (Aug 25-28) and Sonnet 4 (until Sept 2) on the first-party API; third-party platforms were not affected.",
    ),
    "datadog-2023-03-08-systemd-cilium": CaseInfo(
        "Datadog: automatic systemd security update deletes Cilium routes, tens of thousands of Kubernetes nodes drop off",
        "Datadog",
        "An automatic Ubuntu security update to systemd restarted systemd-networkd, which (since systemd v248/v249, shipped in Ubuntu 22.04) flushes IP routing rules it does not manage, including those installed by the Cilium CNI. Tens of thousands of nodes lost pod networking at once in five regions across different cloud providers, because a legacy security-update channel applied the update in the same default 06:00-07:00 UTC window everywhere.",
    ),
    "openai-2018-k8s-etcd-latency": CaseInfo(
        "OpenAI 2,500-node Kubernetes: kubectl timeouts from etcd on network disks and chatty monitoring agents",
        "OpenAI",
        "Past ~500 nodes, researchers saw regular kubectl timeouts. Adding API server replicas only masked it. etcd write latency spiked to hundreds of ms on network-attached SSDs because etcd's sequential, latency-bound writes could use only ~10% of available IOPS. Past ~1,000 nodes, commit latency rose again because Fluentd and Datadog agents on every node polled the API servers with default settings.",
    ),
    "openai-2018-k8s-etcd-quota-autoscaler": CaseInfo(
        "OpenAI 2,500-node Kubernetes: etcd hits 2 GB quota, nodes fail health checks, autoscaler kills all workers",
        "OpenAI",
        "After passing ~1,000 nodes, etcd reached its default 2 GB storage limit and stopped accepting writes. That triggered a cascade: all Kubernetes nodes failed health checks, and the cluster autoscaler concluded they were unhealthy and terminated every worker.",
    ),
    "openai-2021-k8s-endpoints-watch": CaseInfo(
        "OpenAI 7,500-node Kubernetes: Endpoints WATCH fan-out reaches ~1 GB/s of API server traffic",
        "OpenAI",
        "Services such as kubelet and node-exporter include every node as an endpoint; each node also watched them via kube-proxy. Every node add/remove fired the watch on all nodes, so response volume grew as N^2 and occasionally exceeded 1 GB/s, a major strain on API servers. EndpointSlices (Kubernetes 1.17) cut this load about 1000x.",
    ),
    "xing-weave-conntrack-race": CaseInfo(
        "Kubernetes conntrack races: SNAT port collisions (XING) and 5-second DNS lookups (kube-dns DNAT)",
        "XING",
        "After migrating to Kubernetes (1.8, Docker 17.06, Flannel host-gw), XING saw roughly one request per second become very slow. Cause: a Linux netfilter race in SNAT port allocation when many containers open connections to the same destination concurrently; colliding conntrack inserts drop the SYN, adding at least a one-second retransmit delay. The same class of race on DNAT hits DNS: parallel A and AAAA queries from one socket race in conntrack, one is dropped, and the resolver waits its 5-second timeout.",
    ),
    "buffer-cfs-cpu-throttling": CaseInfo(
        "Buffer: Kubernetes CPU limits throttle containers (CFS quota bug) and inflate latency",
        "Buffer; kernel issue tracked in kubernetes/kubernetes#67577",
        "Buffer ran ~60 nodes and ~1,500 containers. Without CPU limits, runaway containers had starved the kubelet, making nodes NotReady and cascading as pods rescheduled. With limits, containers showed heavy CFS throttling even when their usage was below the limit, raising latency; a Linux kernel CFS-bandwidth bug throttled well-behaved tenants unnecessarily. Buffer removed CPU limits for latency-sensitive services.",
    ),
}


def case_url(base_url: str, slug: str) -> str:
    """The library page of a case."""
    return f"{base_url.rstrip('/')}/cases/{slug}/"
