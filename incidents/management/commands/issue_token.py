"""`manage.py issue_token <username>`: the API token of an existing user (an editor).

Prints the user's token (the same one on every run, unless `--rotate` replaces it). Writing
through the API also needs the permission to add (incidents.add_case) or change
(incidents.change_case) cases; the command says when the user lacks them. Users and the editors
group are made elsewhere (`createsuperuser`, the admin, or the editors' own command).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from django.core.management.base import CommandParser
from rest_framework.authtoken.models import Token

WRITE_PERMISSIONS = ("incidents.add_case", "incidents.change_case")


class Command(BaseCommand):
    help = "Print the API token of an existing user (created on first use; --rotate replaces it)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help="an existing user")
        parser.add_argument(
            "--rotate", action="store_true", help="replace the user's token with a new one"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        model = get_user_model()
        try:
            user = model.objects.get(**{model.USERNAME_FIELD: options["username"]})
        except model.DoesNotExist:
            raise CommandError(
                f"There is no user {options['username']!r}; create the user first."
            ) from None
        if not user.is_active:
            raise CommandError(f"The user {options['username']!r} is not active.")
        if options["rotate"]:
            Token.objects.filter(user=user).delete()
        token, _created = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)
        missing = [p for p in WRITE_PERMISSIONS if not user.has_perm(p)]
        if missing:
            self.stderr.write(
                f"Note: {options['username']} may read but not write through the API without "
                f"the permission(s) {', '.join(missing)}."
            )
