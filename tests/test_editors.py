"""Editors: the group and its permissions, `create_editor`, the login page, logout, and login
attempts refused after repeated failures per account and per address (django-axes)."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.test import override_settings

PASSWORD = "a-long-editor-passphrase-7391"


def _create_editor(monkeypatch: pytest.MonkeyPatch, username: str, password: str) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
    out = io.StringIO()
    call_command("create_editor", username, "--email", f"{username}@example.org", stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_the_editors_group_holds_the_case_permissions() -> None:
    group = Group.objects.get(name="Editors")
    assert set(group.permissions.values_list("codename", flat=True)) == {
        "add_case",
        "change_case",
        "view_case",
    }


@pytest.mark.django_db
def test_create_editor_makes_a_non_staff_editor(monkeypatch: pytest.MonkeyPatch) -> None:
    said = _create_editor(monkeypatch, "alice", PASSWORD)
    assert "Editor 'alice' created" in said
    alice = get_user_model().objects.get(username="alice")
    assert not alice.is_staff and not alice.is_superuser
    assert alice.has_perm("incidents.add_case")
    assert list(alice.groups.values_list("name", flat=True)) == ["Editors"]


@pytest.mark.django_db
def test_create_editor_refuses_a_weak_password_and_a_taken_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(CommandError, match="the password is refused"):
        _create_editor(monkeypatch, "bob", "1234")
    assert not get_user_model().objects.filter(username="bob").exists()
    _create_editor(monkeypatch, "bob", PASSWORD)
    with pytest.raises(CommandError, match="already exists"):
        _create_editor(monkeypatch, "bob", PASSWORD)


def _login(client: Client, username: str, password: str, **extra: str) -> int:
    response = client.post(
        "/accounts/login/?next=/submit/",
        {"username": username, "password": password, "next": "/submit/"},
        **extra,
    )
    return response.status_code


def test_an_editor_logs_in_submits_and_logs_out(
    client: Client, small_library: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _create_editor(monkeypatch, "carol", PASSWORD)
    page = client.get("/submit/", follow=True)
    assert page.redirect_chain[-1][0] == "/accounts/login/?next=/submit/"
    assert "<h1>Log in</h1>" in page.content.decode()
    assert _login(client, "carol", PASSWORD) == 302
    submit = client.get("/submit/")
    assert submit.status_code == 200
    assert "Log out carol" in submit.content.decode()
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/submit/").status_code == 302


@override_settings(AXES_FAILURE_LIMIT=5)
def test_wrong_passwords_lock_the_account_even_for_the_right_one(
    client: Client, small_library: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _create_editor(monkeypatch, "dave", PASSWORD)
    for n in range(4):
        # From five addresses: the account is locked, whoever tries.
        assert _login(client, "dave", "wrong", REMOTE_ADDR=f"192.0.2.{n}") == 200
    assert _login(client, "dave", "wrong", REMOTE_ADDR="192.0.2.4") == 429  # the fifth failure
    assert _login(client, "dave", PASSWORD, REMOTE_ADDR="198.51.100.7") == 429
    assert client.get("/submit/").status_code == 302  # not logged in


@override_settings(AXES_FAILURE_LIMIT=5)
def test_wrong_passwords_from_one_address_lock_that_address(
    client: Client, small_library: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _create_editor(monkeypatch, "erin", PASSWORD)
    for n in range(4):
        assert _login(client, f"guess-{n}", "wrong", REMOTE_ADDR="203.0.113.9") == 200
    assert _login(client, "guess-4", "wrong", REMOTE_ADDR="203.0.113.9") == 429
    locked = client.post(
        "/accounts/login/",
        {"username": "erin", "password": PASSWORD},
        REMOTE_ADDR="203.0.113.9",
    )
    assert locked.status_code == 429
    assert "Too many login attempts" in locked.content.decode()
    # Another address may still log in to the account.
    assert _login(client, "erin", PASSWORD, REMOTE_ADDR="203.0.113.10") == 302


def test_the_admin_login_is_limited_too(client: Client, db: None) -> None:
    get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD)
    for _ in range(5):
        client.post("/admin/login/", {"username": "root", "password": "wrong"})
    response = client.post("/admin/login/", {"username": "root", "password": PASSWORD})
    assert response.status_code == 429
