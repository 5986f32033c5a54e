"""Start-up stays lean: Django set up with every app, admin and URLconf loaded (what each
`manage.py` command and each server process does) imports none of the heavy libraries a few
features use; the production server's warm-up (gunicorn's `when_ready`) loads them all."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT
from tests.server import base_env

# What only suggestions, library hints and the graph use: wordfreq and its helpers, the
# lemmatiser, networkx (about 0.3 s of every process's start-up when imported).
ON_FIRST_USE = ("wordfreq", "ftfy", "langcodes", "simplemma", "networkx")

SCRIPT = """
import sys, django
django.setup()
from django.urls import get_resolver
get_resolver().url_patterns
print(" ".join(sorted(sys.modules)))
from incidents.config.warmup import warm
warm()
print(" ".join(sorted(sys.modules)))
"""


def test_start_up_imports_the_heavy_libraries_only_when_warmed() -> None:
    env = base_env() | {
        "DJANGO_SETTINGS_MODULE": "incidents.config.settings",
        "DEBUG": "1",
        "SECRET_KEY": "test-only",
        "DATABASE_URL": "sqlite:///:memory:",
    }
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    started, warmed = (set(line.split()) for line in result.stdout.splitlines())
    assert "incidents.config.urls" in started
    assert sorted(started.intersection(ON_FIRST_USE)) == []
    assert sorted(warmed.intersection(ON_FIRST_USE)) == sorted(ON_FIRST_USE)
