"""The Editors and Reviewers groups and what each may do.

Made by a data migration; `ensure_groups` also mends them where they went missing (a test
database flushed between tests, an admin who deleted one by mistake).
"""

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
    # The triage of readers' suggested cases (cases.contributions.suggestions).
    "cases.view_suggestion",
    "cases.change_suggestion",
]
REVIEWER_PERMISSIONS = EDITOR_PERMISSIONS + [
    "cases.review_case",
    "cases.merge_term",
    "cases.merge_organisation",
    "cases.merge_case",  # a duplicate case into another (cases.editorial.combining)
]
GROUPS = {"Editors": EDITOR_PERMISSIONS, "Reviewers": REVIEWER_PERMISSIONS}
ROLES = {"editor": "Editors", "reviewer": "Reviewers"}


def ensure_groups(group_model=None, permission_model=None):
    """Create or repair both groups; the models may be a migration's historical ones."""
    if group_model is None:
        from django.contrib.auth.models import Group as group_model
        from django.contrib.auth.models import Permission as permission_model
    groups = {}
    for name, codenames in GROUPS.items():
        group, _created = group_model.objects.get_or_create(name=name)
        permissions = []
        for dotted in codenames:
            app_label, codename = dotted.split(".")
            permissions.append(
                permission_model.objects.get(content_type__app_label=app_label, codename=codename)
            )
        group.permissions.set(permissions)
        groups[name] = group
    return groups
