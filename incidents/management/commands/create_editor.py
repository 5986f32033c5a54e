"""`manage.py create_editor USERNAME [--email ADDRESS]`: an editor who can submit cases.

The account is not staff (no admin); it is in the "Editors" group, which holds the case
permissions. The password is asked twice on a terminal, or read from the first line of standard
input (`printf '%s\\n' "$PASSWORD" | manage.py create_editor alice`), and must pass the password
validators.
"""

from __future__ import annotations

import getpass
import sys
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from django.core.management.base import CommandParser
from django.db import transaction

EDITORS = "Editors"


class Command(BaseCommand):
    help = "Create an editor: a non-staff account in the Editors group, able to submit cases."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--email", default="")

    def _password(self) -> str:
        if sys.stdin.isatty():
            first = getpass.getpass("Password: ")
            if first != getpass.getpass("Password (again): "):
                raise CommandError("the two passwords differ")
            return first
        return sys.stdin.readline().rstrip("\n")

    def handle(self, *args: Any, **options: Any) -> None:
        username: str = options["username"]
        user_model = get_user_model()
        if user_model.objects.filter(username=username).exists():
            raise CommandError(f"a user named {username!r} already exists")
        try:
            group = Group.objects.get(name=EDITORS)
        except Group.DoesNotExist:
            raise CommandError("there is no Editors group: run `manage.py migrate` first") from None
        password = self._password()
        if not password:
            raise CommandError("no password given")
        user = user_model(username=username, email=options["email"])
        try:
            validate_password(password, user)
        except ValidationError as exc:
            raise CommandError("the password is refused: " + " ".join(exc.messages)) from None
        with transaction.atomic():
            user.set_password(password)
            user.save()
            user.groups.add(group)
        self.stdout.write(f"Editor {username!r} created; they log in at /accounts/login/.")
