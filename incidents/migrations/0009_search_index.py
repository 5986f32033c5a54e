"""The text search index (incidents.models.search): an FTS5 table on SQLite, a table of weighted
tsvectors with a GIN index on PostgreSQL, and the word counts. The loader fills it
(`manage.py load_cases`); `refresh_search_index()` rebuilds it."""

import django.db.models.deletion
import incidents.models.search
from django.db import migrations, models


TABLE = "incidents_searchindex"

SQLITE = [
    # The columns hold stems made in Python (incidents.search.terms); FTS5 only splits them.
    f"CREATE VIRTUAL TABLE {TABLE} USING fts5(title, summary, facets, body, tags, tokenize='unicode61')",
    f"CREATE TRIGGER {TABLE}_case_deleted AFTER DELETE ON incidents_case "
    f"BEGIN DELETE FROM {TABLE} WHERE rowid = old.id; END",
]
SQLITE_REVERSE = [f"DROP TRIGGER IF EXISTS {TABLE}_case_deleted", f"DROP TABLE IF EXISTS {TABLE}"]
POSTGRES = [
    # No foreign key: Django's flush (tests) truncates incidents_case without this unmanaged
    # table, which a foreign key refuses. Triggers keep it in step instead, as on SQLite.
    f"CREATE TABLE {TABLE} (rowid integer PRIMARY KEY, {TABLE} tsvector NOT NULL)",
    f"CREATE FUNCTION {TABLE}_case_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    f"DELETE FROM {TABLE} WHERE rowid = OLD.id; RETURN OLD; END $$",
    f"CREATE TRIGGER {TABLE}_case_deleted AFTER DELETE ON incidents_case "
    f"FOR EACH ROW EXECUTE FUNCTION {TABLE}_case_deleted()",
    f"CREATE FUNCTION {TABLE}_cases_truncated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    f"DELETE FROM {TABLE}; RETURN NULL; END $$",
    f"CREATE TRIGGER {TABLE}_cases_truncated AFTER TRUNCATE ON incidents_case "
    f"FOR EACH STATEMENT EXECUTE FUNCTION {TABLE}_cases_truncated()",
    f"CREATE INDEX {TABLE}_document ON {TABLE} USING gin ({TABLE})",
    # Ranking reads each matching vector once per query word: kept inline and uncompressed
    # (a case's vector is about 3 kB), it is not fetched from TOAST and decompressed each time,
    # which made a 500-character query 10 times slower at 10,000 cases.
    f"ALTER TABLE {TABLE} SET (toast_tuple_target = 8160)",
    f"ALTER TABLE {TABLE} ALTER COLUMN {TABLE} SET STORAGE MAIN",
]
POSTGRES_REVERSE = [
    f"DROP TRIGGER IF EXISTS {TABLE}_cases_truncated ON incidents_case",
    f"DROP TRIGGER IF EXISTS {TABLE}_case_deleted ON incidents_case",
    f"DROP FUNCTION IF EXISTS {TABLE}_cases_truncated()",
    f"DROP FUNCTION IF EXISTS {TABLE}_case_deleted()",
    f"DROP TABLE IF EXISTS {TABLE}",
]


def _run(statements: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        for sql in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):

    dependencies = [
        ("incidents", "0008_case_newest_first_index"),
    ]

    operations = [
        migrations.CreateModel(
            name='SearchIndex',
            fields=[
                ('case', models.OneToOneField(db_column='rowid', db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, primary_key=True, related_name='search_index', serialize=False, to='incidents.case')),
                ('document', incidents.models.search.SearchDocumentField(db_column='incidents_searchindex')),
            ],
            options={
                'db_table': 'incidents_searchindex',
                'managed': False,
            },
        ),
        migrations.CreateModel(
            name='SearchTerm',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('term', models.CharField(max_length=100, unique=True)),
                ('word', models.CharField(max_length=100)),
                ('cases', models.PositiveIntegerField(default=0)),
            ],
            options={
                'ordering': ['term'],
            },
        ),
        migrations.RunPython(
            _run({"sqlite": SQLITE, "postgresql": POSTGRES}),
            _run({"sqlite": SQLITE_REVERSE, "postgresql": POSTGRES_REVERSE}),
        ),
    ]
