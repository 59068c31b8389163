import importlib.util
import io
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

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


# --- packaging and licences -------------------------------------------------------------

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_pyproject_names_its_build_backend_and_its_packages():
    assert PYPROJECT["build-system"]["build-backend"] == "setuptools.build_meta"
    find = PYPROJECT["tool"]["setuptools"]["packages"]["find"]
    assert find["include"] == ["incidentlib*", "cases*"]
    # Without namespace packages, a folder of modules without __init__.py is left out of
    # the wheel without a word: every such folder of the two packages must have one.
    assert find["namespaces"] is False
    for top in ("incidentlib", "cases"):
        for folder in [REPO / top, *(REPO / top).rglob("*")]:
            if folder.is_dir() and any(folder.glob("*.py")):
                assert (folder / "__init__.py").exists(), f"{folder} is not a package"


def test_the_code_and_the_bundled_content_each_have_a_licence():
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE", "data/LICENSE"]
    assert "Apache License" in (REPO / "LICENSE").read_text(encoding="utf-8")
    content = (REPO / "data" / "LICENSE").read_text(encoding="utf-8")
    assert "CC BY 4.0" in content and "https://creativecommons.org/licenses/by/4.0/" in content


@pytest.mark.skipif(
    importlib.util.find_spec("setuptools") is None,
    reason="setuptools, the build backend, is not installed in this environment "
    "(pip builds in an isolated environment that downloads it)",
)
def test_the_project_builds_a_wheel_of_its_packages(tmp_path):
    """What `pip install .` does, without the network: build the wheel and read it."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(tmp_path), str(REPO)],
        check=True,
        timeout=120,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("incidentlib-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "cases/api/__init__.py" in names and "incidentlib/settings/base.py" in names
    assert not any(name.startswith(("tests/", "bench/")) for name in names)
