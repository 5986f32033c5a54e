"""A bounded burst of requests against a running server: status, latency, and worker memory.

Used by tests/bench_load.py (the figures) and tests/test_load_burst.py (the floor: no errors).
Only loopback addresses are targets; the burst is a fixed number of requests and stops by itself.
"""

from __future__ import annotations

import http.client
import itertools
import statistics
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from urllib.parse import urlsplit

HEADERS = {"X-Forwarded-Proto": "https", "Accept-Encoding": "gzip"}


@dataclass
class Burst:
    """What a burst saw, per path: latencies (ms) and the statuses that were not 200."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def requests(self) -> int:
        return sum(len(v) for v in self.latencies.values())

    def of(self, paths: list[str]) -> list[float]:
        return [ms for path in paths for ms in self.latencies[path]]


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (share 0.95 for p95)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered)) - 1))]


def run_burst(base_url: str, paths: list[str], *, requests: int, concurrency: int) -> Burst:
    """`requests` GETs cycling over `paths`, `concurrency` at a time, each thread keeping one
    HTTP/1.1 connection alive (as a browser or a proxy would)."""
    assert urlsplit(base_url).hostname in {"127.0.0.1", "localhost"}, "loopback only"
    burst = Burst()
    lock = threading.Lock()
    plan = list(itertools.islice(itertools.cycle(paths), requests))
    local = threading.local()
    target = urlsplit(base_url)

    def one(path: str) -> None:
        if getattr(local, "conn", None) is None:
            local.conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
        start = time.perf_counter()
        try:
            local.conn.request("GET", path, headers=HEADERS)
            response = local.conn.getresponse()
            response.read()
            status = response.status
        except (OSError, http.client.HTTPException) as exc:
            local.conn.close()
            local.conn = None
            status, detail = 0, type(exc).__name__
        else:
            detail = str(status)
        elapsed = (time.perf_counter() - start) * 1000
        with lock:
            burst.latencies[path].append(elapsed)
            if status != 200:
                burst.errors.append(f"{path}: {detail}")

    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(one, plan))
    burst.seconds = time.perf_counter() - began
    return burst


def rss_mib(pid: int) -> float:
    """Resident memory of a process, MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def summary(values: list[float]) -> str:
    return (
        f"n={len(values):5d}  p50={statistics.median(values):7.1f} ms  "
        f"p95={percentile(values, 0.95):7.1f} ms  max={max(values):7.1f} ms"
    )
