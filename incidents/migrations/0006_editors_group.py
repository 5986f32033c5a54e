"""The "Editors" group: the permissions to add, change and view cases (the submission form)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

EDITORS = "Editors"
CODENAMES = ["add_case", "change_case", "view_case"]


def add_editors(apps, schema_editor):
    # Permissions are made after migrations run; make this app's now, so the group can hold them.
    app_config = apps.get_app_config("incidents")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=EDITORS)
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="incidents", codename__in=CODENAMES)
    )


def remove_editors(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=EDITORS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("incidents", "0005_library_state"),
    ]

    operations = [migrations.RunPython(add_editors, remove_editors)]
