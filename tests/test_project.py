import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    call_command("makemigrations", "--check", "--dry-run", stdout=io.StringIO())


@pytest.mark.django_db
def test_ensure_admin_creates_one_account_and_prints_its_password_once(django_user_model):
    first, second = io.StringIO(), io.StringIO()
    call_command("ensure_admin", stdout=first)
    call_command("ensure_admin", stdout=second)
    admin = django_user_model.objects.get(username="admin")
    password = first.getvalue().split("with password ")[1].split(" ")[0]
    assert admin.is_superuser and admin.check_password(password)
    assert password not in second.getvalue()


@pytest.mark.django_db
def test_admin_is_reachable(admin_client):
    assert admin_client.get("/admin/cases/case/").status_code == 200


@pytest.mark.django_db
def test_the_migrations_groups_match_the_current_roles():
    from django.contrib.auth.models import Group

    from cases.editorial.roles import GROUPS

    for name, codenames in GROUPS.items():
        group = Group.objects.get(name=name)
        granted = {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}
        assert granted == set(codenames)
