"""The benchmark's printed table and the line naming the machine it ran on."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any


def _fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return ""
    if value < 1:  # a throughput row's CPU per request: tenths would hide the difference
        return f"{value:.2f}{unit}"
    return f"{value:,.1f}{unit}" if value < 100 else f"{value:,.0f}{unit}"


def machine(server_url: str) -> str:
    """The machine line of the table: CPU, cores, kernel, Python, PostgreSQL and the load."""
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor()
    try:
        import psycopg

        url = server_url.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(url) as conn:
            row = conn.execute("SHOW server_version").fetchone()
            pg = f"PostgreSQL {row[0] if row else '?'}"
    except Exception:  # noqa: BLE001 - the machine line must not stop the table
        pg = "PostgreSQL ?"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{cpu or 'unknown CPU'}, {os.cpu_count()} cores, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}, {pg}; "
        f"load average at the end {load} (1, 5, 15 min)"
    )


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| size | what | owner | p50 ms | p95 ms | floor ms | x floor | outside SQL ms"
        " | CPU ms | queries | req/s | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        for r in result["rows"]:
            lines.append(
                f"| {result['cases']:,} | {r['name']} | {r['owner']} | {_fmt(r['p50'])} "
                f"| {_fmt(r['p95'])} | {_fmt(r['floor'])} | {_fmt(r['ratio'], 'x')} "
                f"| {_fmt(r['outside_sql'])} | {_fmt(r['cpu'])} | {r['queries'] or ''} "
                f"| {_fmt(r['per_second'])} "
                f"| {r['note']} |"
            )
    return "\n".join(lines)
