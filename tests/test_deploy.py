"""The production start: `check --deploy` silent under site/env.example, the preflight's one line,
and the DEBUG error page without secrets."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from django.test import override_settings
from django.urls import path

from incidents.config import preflight
from incidents.config.caches import rate_cache
from tests.server import REPO_ROOT
from tests.server import base_env
from tests.server import env_example

DB_PASSWORD = "s3cret-db-pass-9431"


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )


def test_check_deploy_is_silent_under_the_documented_production_environment() -> None:
    result = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "DEBUG"], base_env() | env_example()
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."


def test_check_deploy_warns_without_the_https_settings() -> None:
    env = base_env() | env_example()
    env.pop("SECURE_HSTS_SECONDS")
    env["SESSION_COOKIE_SECURE"] = "0"
    result = _run(["manage.py", "check", "--deploy"], env)
    assert "security.W004" in result.stderr and "security.W012" in result.stderr


def _secret() -> str:
    return "k" * 20 + "Zq81-Xw93_Lp02-Mn47_Rt56" + "v" * 10


@pytest.mark.parametrize("missing", ["SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL"])
def test_preflight_refuses_a_missing_setting_in_one_line(missing: str) -> None:
    env = base_env() | env_example() | {"SECRET_KEY": _secret()}
    del env[missing]
    result = _run(["-m", "incidents.config.preflight"], env)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"make serve: refusing to start: {missing} is not set (see site/env.example)"
    ]


def test_preflight_passes_the_documented_environment_with_a_real_secret() -> None:
    env = base_env() | env_example() | {"SECRET_KEY": _secret()}
    result = _run(["-m", "incidents.config.preflight"], env)
    assert (result.returncode, result.stderr) == (0, "")


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({}, "SECRET_KEY must be at least 50 random characters"),  # the example's own secret
        ({"SECRET_KEY": "short"}, "SECRET_KEY must be at least 50"),
        ({"DEBUG": "1", "SECRET_KEY": _secret()}, "DEBUG is on"),
        (
            {"GUNICORN_WORKERS": "many", "SECRET_KEY": _secret()},
            "GUNICORN_WORKERS='many' is not a positive whole number",
        ),
        (
            {"API_RATE_CACHE": "locmem", "SECRET_KEY": _secret()},
            "API_RATE_CACHE=locmem counts each worker's requests apart",
        ),
    ],
)
def test_preflight_names_an_unusable_value(change: dict[str, str], says: str) -> None:
    found = preflight.problem(env_example() | change)
    assert found is not None and says in found


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"SECURE_PROXY_SSL_HEADER": "x"}, "SECURE_PROXY_SSL_HEADER must be 'HEADER,value'"),
        ({"API_RATE_CACHE": "memcache://x"}, "API_RATE_CACHE='memcache://x' is not db"),
        ({"DATABASE_URL": "mysqlx://db/incidents"}, "mysqlx"),
        ({"AXES_FAILURE_LIMIT": "five"}, "AXES_FAILURE_LIMIT='five' is not a whole number"),
    ],
)
def test_preflight_reports_the_settings_own_complaint_in_one_line(
    change: dict[str, str], says: str
) -> None:
    env = base_env() | env_example() | {"SECRET_KEY": _secret()} | change
    result = _run(["-m", "incidents.config.preflight"], env)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert says in result.stderr


def test_make_serve_installs_nothing_and_makes_the_rate_table_before_gunicorn() -> None:
    # The production start needs no package index (README, Deploy: `make install` comes first),
    # even just after a change to pyproject.toml (-W: as if it had just been modified).
    result = subprocess.run(
        ["make", "-n", "-W", "pyproject.toml", "serve"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert not [line for line in lines if "pip" in line]
    steps = [next(i for i, line in enumerate(lines) if word in line) for word in STEPS]
    assert steps == sorted(steps), lines


def test_the_rate_cache_is_shared_unless_asked_otherwise() -> None:
    assert rate_cache("", debug=False)["LOCATION"] == "api_rate_counts"  # the database's table
    assert rate_cache("db://rates", debug=False)["LOCATION"] == "rates"
    assert rate_cache("", debug=True)["BACKEND"].endswith("LocMemCache")  # make run: one process
    if importlib.util.find_spec("redis") is None:
        with pytest.raises(ImproperlyConfigured, match="needs the redis package"):
            rate_cache("redis://127.0.0.1:6379/0", debug=False)
    else:
        assert rate_cache("redis://127.0.0.1:6379/0", debug=False)["BACKEND"].endswith("RedisCache")


STEPS = ["preflight", "migrate", "createcachetable", "collectstatic", "gunicorn --config"]


def _failing_view(request: object) -> None:
    conninfo = f"host=db port=5432 user=incidents password={DB_PASSWORD} dbname=incidents"
    database = {"USER": "incidents", "PASSWORD": DB_PASSWORD}
    raise RuntimeError(f"cannot use {conninfo.split()[0]} {len(database)}")


urlpatterns = [path("boom/", _failing_view)]


@override_settings(DEBUG=True, ROOT_URLCONF=__name__)
def test_the_debug_error_page_shows_no_database_password(settings: object) -> None:
    settings.DATABASES["default"]["PASSWORD"] = DB_PASSWORD  # type: ignore[attr-defined]
    client = Client(raise_request_exception=False)
    response = client.get(
        "/boom/", DATABASE_URL=f"postgres://incidents:{DB_PASSWORD}@db:5432/incidents"
    )
    assert response.status_code == 500
    page = response.content.decode()
    assert "RuntimeError" in page and "conninfo" in page  # the technical page, with its frames
    assert DB_PASSWORD not in page
