"""What several tests need of a whole library: the bundled one loaded, every row hashed,
everything a reader can see, the library emptied."""

import hashlib
import io
import json
import os
import subprocess
import sys
from urllib.parse import urlsplit, urlunsplit

from django.apps import apps
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection

from cases.models import (
    Case,
    CaseStep,
    CaseTerm,
    Organisation,
    OrganisationRedirect,
    Source,
    Term,
    TermRedirect,
)
from tests.conftest import REPO

PATIENCE = 300  # seconds before a stuck subprocess fails the test (never reached normally)


def load_bundled_library():
    call_command("load_taxonomy", str(REPO / "data" / "taxonomy.json"), stdout=io.StringIO())
    call_command("import_cases", str(REPO / "data" / "cases"), stdout=io.StringIO())


def database_fingerprint():
    """Every row of every table of the cases app (timestamps included), hashed; but who has
    a case's page open, which opening the page records."""
    digest = hashlib.sha256()
    models = apps.get_app_config("cases").get_models()
    for model in sorted(models, key=lambda m: m.__name__):
        if model.__name__ == "CasePresence":
            continue
        rows = model.objects.order_by("pk").values_list()
        digest.update(f"{model.__name__} {rows.count()} {list(rows)!r}".encode())
    return digest.hexdigest()


def graph_without_ids(data):
    """Graph JSON with node ids (database keys) replaced by the node's address."""
    address = {node["id"]: node["url"] for node in data["nodes"]}
    nodes = sorted(
        (json.dumps({k: v for k, v in node.items() if k != "id"}, sort_keys=True))
        for node in data["nodes"]
    )
    edges = sorted((address[e["source"]], address[e["target"]], e["weight"]) for e in data["edges"])
    return {**data, "nodes": nodes, "edges": edges}


def public_site(client):
    """What a reader can see: every page, list and case, in both languages, and the JSON."""
    # Inside the test's transaction on_commit never fires, so the page cache is not
    # invalidated by the writes: start from an empty one.
    cache.clear()
    site = {"terms": sorted(Term.objects.values_list("vocabulary", "slug", "label_en", "label_ko"))}
    public_ids = sorted(Case.objects.public().values_list("public_id", flat=True))
    for language in ("en", "ko"):
        listing = client.get(f"/{language}/cases/")
        site[f"{language} facets"] = [
            (facet.name, [(value.slug, value.label, value.count) for value in facet.values])
            for facet in listing.context["listing"].facets
        ]
        site[f"{language} list"] = listing.content.decode()
        site[f"{language} list json"] = client.get(f"/{language}/cases.json").json()
        for public_id in public_ids:
            site[f"{language} {public_id}"] = client.get(
                f"/{language}/cases/{public_id}/"
            ).content.decode()
            site[f"{language} {public_id}.json"] = client.get(
                f"/{language}/cases/{public_id}.json"
            ).json()
        for tab in ("cause", "component", "case"):
            site[f"{language} graph {tab}"] = graph_without_ids(
                client.get(f"/{language}/graph.json?tab={tab}").json()
            )
    return site


def empty_the_library():
    for model in (CaseTerm, CaseStep, Source, TermRedirect, OrganisationRedirect):
        model.objects.all().delete()
    Case.objects.update(recurrence_of=None)
    Case.objects.all().delete()
    Term.objects.all().delete()
    Organisation.objects.all().delete()


def subprocess_env():
    """manage.py in a subprocess, on the database this test runs on."""
    settings = connection.settings_dict
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "incidentlib.settings.test"}
    if connection.vendor == "sqlite":
        env["DATABASE_URL"] = f"sqlite:///{settings['NAME']}"
    else:
        parts = urlsplit(os.environ["DATABASE_URL"])
        env["DATABASE_URL"] = urlunsplit(parts._replace(path=f"/{settings['NAME']}"))
    return env


def manage(*args):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )


def export_and_dry_run(tmp_path):
    """Export the whole library and import it again, dry: what the import says."""
    path = tmp_path / "library.jsonl"
    call_command("export_cases", "--output", str(path), stderr=io.StringIO())
    out = io.StringIO()
    call_command("import_cases", str(path), "--dry-run", stdout=out, stderr=io.StringIO())
    return out.getvalue()
