"""``python -m incidents.audit`` runs the kubegap CLI."""

import sys

from .cli import main

sys.exit(main())
