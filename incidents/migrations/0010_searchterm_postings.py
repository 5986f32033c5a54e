"""The cases holding each search term (`SearchTerm.postings`, a roaring bitmap of case ids), filled
from the index rows already written: a search reads its matches from there."""

from django.db import migrations, models


def fill_postings(apps, schema_editor):  # type: ignore[no-untyped-def]
    # The service reads the index table with SQL; the models it uses have not changed since.
    from incidents.services.search_index import refresh_postings

    if apps.get_model("incidents", "SearchTerm").objects.exists():
        refresh_postings()


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
        migrations.RunPython(fill_postings, migrations.RunPython.noop),
    ]
