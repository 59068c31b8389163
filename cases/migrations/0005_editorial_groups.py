"""The Editors and Reviewers groups and what each may do."""
# The lists are frozen here on purpose: cases/roles.py holds the current ones, which may
# name permissions of models that do not exist yet at this point of the migrations.

from django.contrib.auth.management import create_permissions
from django.db import migrations

EDITOR_PERMISSIONS = [
    "cases.view_case",
    "cases.add_case",
    "cases.change_case",
    "cases.submit_case",
    "cases.view_source",
    "cases.add_source",
    "cases.change_source",
    "cases.delete_source",
    "cases.view_casestep",
    "cases.add_casestep",
    "cases.change_casestep",
    "cases.delete_casestep",
    "cases.view_caseterm",
    "cases.add_caseterm",
    "cases.change_caseterm",
    "cases.delete_caseterm",
    "cases.view_caserelation",
    "cases.add_caserelation",
    "cases.change_caserelation",
    "cases.delete_caserelation",
    "cases.view_organisation",
    "cases.add_organisation",
    "cases.change_organisation",
    "cases.view_term",
    "cases.add_term",
    "cases.change_term",
    "cases.view_caseversion",
]
REVIEWER_PERMISSIONS = EDITOR_PERMISSIONS + ["cases.review_case", "cases.merge_term"]
GROUPS = {"Editors": EDITOR_PERMISSIONS, "Reviewers": REVIEWER_PERMISSIONS}


def create_groups(apps, schema_editor):
    # Permissions are normally created after migrations; these groups need them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, codenames in GROUPS.items():
        group, _ = Group.objects.get_or_create(name=name)
        permissions = []
        for dotted in codenames:
            app_label, codename = dotted.split(".")
            permissions.append(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )
        group.permissions.set(permissions)


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=GROUPS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("cases", "0004_editorial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [migrations.RunPython(create_groups, remove_groups)]
