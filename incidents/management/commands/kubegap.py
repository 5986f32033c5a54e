"""`manage.py kubegap ...`: the kubegap audit CLI; everything after `kubegap` goes to it unchanged."""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from django.core.management.base import CommandParser

from incidents.audit.cli import main as kubegap_main


class Command(BaseCommand):
    help = "Run kubegap, the read-only cluster audit (see `manage.py kubegap --help`)."

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.add_argument("kubegap_args", nargs=argparse.REMAINDER)
        return parser

    def run_from_argv(self, argv: list[str]) -> None:
        # Bypass Django's option parsing so that kubegap's own flags (--help, --format, ...) reach it.
        code = kubegap_main(argv[2:])
        if code:
            raise SystemExit(code)

    def handle(self, *args: Any, **options: Any) -> None:
        code = kubegap_main(list(options.get("kubegap_args") or []))
        if code:
            raise CommandError(f"kubegap exited with status {code}", returncode=code)
