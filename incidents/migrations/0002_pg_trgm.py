"""pg_trgm for typo-tolerant search on PostgreSQL; Django skips it on other databases."""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("incidents", "0001_initial")]

    # CreateExtension does nothing unless the database is PostgreSQL.
    operations = [TrigramExtension()]
