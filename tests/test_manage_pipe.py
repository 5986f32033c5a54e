"""manage.py from a shell: a reader that goes away (`… | head`) ends a command quietly, and a
missing setting is one line naming it, not a traceback."""

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


def test_a_missing_setting_is_one_line_naming_it() -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    env["DJANGO_SETTINGS_MODULE"] = "incidents.config.settings"
    done = subprocess.run(
        [sys.executable, str(MANAGE), "check"], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 2
    assert "SECRET_KEY is not set" in done.stderr
    assert "Traceback" not in done.stderr
