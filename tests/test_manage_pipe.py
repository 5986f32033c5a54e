"""`manage.py … | head`: a reader that goes away ends a command quietly, as with Unix tools."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MANAGE = Path(__file__).resolve().parent.parent / "manage.py"


def test_a_closed_pipe_ends_a_command_quietly() -> None:
    env = {**os.environ, "SECRET_KEY": "pipe-test"}
    proc = subprocess.Popen(
        [sys.executable, str(MANAGE), "spectacular"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the schema (about 64 KB) is written
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, stderr
    assert "Traceback" not in stderr
    assert "BrokenPipeError" not in stderr
