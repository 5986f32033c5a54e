#!/usr/bin/env python
"""Django's command-line utility for the incident library."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidents.config.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
        sys.stdout.flush()
    except ImproperlyConfigured as exc:
        # A setting missing from the environment (SECRET_KEY, DATABASE_URL, ...): one line naming
        # it, not a traceback (README "Configuration" lists them).
        sys.stderr.write(f"manage.py: {exc}\n")
        sys.exit(2)
    except BrokenPipeError:
        # The reader went away (`manage.py eval_suggestions --misses | head`): stop quietly, as
        # Unix tools do; what is still buffered goes nowhere instead of into a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    main()
