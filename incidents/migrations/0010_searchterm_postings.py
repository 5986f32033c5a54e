"""The cases holding each search term (`SearchTerm.postings`, a roaring bitmap of case ids; also
those holding it in the title, and in the summary or facet names), filled by rebuilding the
index: a search reads its matches from there."""

from django.db import migrations, models


def fill_postings(apps, schema_editor):  # type: ignore[no-untyped-def]
    # The service's models are as this migration leaves them (no later change to SearchTerm).
    from incidents.services.search_index import refresh_search_index

    if apps.get_model("incidents", "SearchTerm").objects.exists():
        refresh_search_index()


class Migration(migrations.Migration):

    dependencies = [
        ("incidents", "0009_search_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="searchterm",
            name="postings",
            field=models.BinaryField(default=b"", editable=False),
        ),
        migrations.AddField(
            model_name="searchterm",
            name="summary_postings",
            field=models.BinaryField(default=b"", editable=False),
        ),
        migrations.AddField(
            model_name="searchterm",
            name="title_postings",
            field=models.BinaryField(default=b"", editable=False),
        ),
        migrations.RunPython(fill_postings, migrations.RunPython.noop),
    ]
