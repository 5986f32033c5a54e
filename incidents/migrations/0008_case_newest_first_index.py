"""An index on the library's default order (newest first, then title).

Written in SQL because the order sorts NULLs last, which PostgreSQL indexes as
`DESC NULLS LAST`; SQLite cannot say NULLS LAST in an index but already puts NULLs last when
sorting DESC, so it gets the same index without the clause. Not in the model's Meta (Django would
write NULLS LAST for SQLite too).
"""

from django.db import migrations

COLUMNS = {
    "postgresql": 'COALESCE("period_start", "published") DESC NULLS LAST, "title"',
    "sqlite": 'COALESCE("period_start", "published") DESC, "title"',
}


def create_index(apps, schema_editor):
    columns = COLUMNS.get(schema_editor.connection.vendor, COLUMNS["sqlite"])
    schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "case_newest_first" ON "incidents_case" ({columns})')


def drop_index(apps, schema_editor):
    schema_editor.execute('DROP INDEX IF EXISTS "case_newest_first"')


class Migration(migrations.Migration):

    dependencies = [
        ("incidents", "0007_facet_value_phrases"),
    ]

    operations = [migrations.RunPython(create_index, drop_index)]
