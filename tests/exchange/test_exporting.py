import io
import json

import pytest
from django.core.management import call_command

from cases.models import Case
from tests.conftest import REPO
from tests.factories import CaseFactory, CaseStepFactory, SourceFactory, TermFactory

pytestmark = pytest.mark.django_db


def export(*args):
    stdout = io.StringIO()
    call_command("export_cases", *args, stdout=stdout, stderr=io.StringIO())
    return stdout.getvalue()


def test_il_0585_comes_back_as_the_same_json_value(seed_case, write_json):
    call_command("import_cases", str(write_json("c.json", seed_case)), stdout=io.StringIO())
    assert json.loads(export()) == [seed_case]


def test_export_then_import_into_an_empty_database_reproduces_every_case(
    tmp_path, django_db_reset_sequences
):
    # Everything the bundled library holds, through a JSON Lines file and back.
    call_command("import_cases", str(REPO / "data" / "cases"), stdout=io.StringIO())
    first = tmp_path / "all.jsonl"
    call_command("export_cases", "--output", str(first), stderr=io.StringIO())
    original = [json.loads(line) for line in first.read_text().splitlines()]
    assert len(original) == Case.objects.count() >= 1

    Case.objects.all().delete()
    call_command("import_cases", str(first), stdout=io.StringIO())
    again = [json.loads(line) for line in export("--jsonl").splitlines()]
    assert again == original


def test_export_writes_what_the_cms_holds(write_json):
    term = TermFactory(slug="dns")
    case = CaseFactory(
        public_id="IL-0042", title_ko="", impact_scope_en="All users", with_terms=[term]
    )
    SourceFactory(case=case, url="https://example.org/pm", kind="postmortem")
    CaseStepFactory(case=case, text_en="Rolled back.", text_ko="")
    related = CaseFactory(public_id="IL-0043")
    case.related.add(related, through_defaults={"position": 0})

    (exported,) = [c for c in json.loads(export()) if c["id"] == "IL-0042"]
    assert exported["components"] == ["dns"]
    assert exported["title"] == {"en": case.title_en, "ko": ""}
    assert exported["impact"]["scope"] == "All users"
    assert exported["remediation"] == [{"en": "Rolled back.", "ko": ""}]
    assert exported["sources"] == [
        {"url": "https://example.org/pm", "kind": "postmortem", "archived": None}
    ]
    assert exported["related"] == ["IL-0043"]
    # What the exporter writes, the importer takes back unchanged.
    call_command(
        "import_cases", str(write_json("again.json", exported)), "--force", stdout=io.StringIO()
    )
    assert [c for c in json.loads(export()) if c["id"] == "IL-0042"] == [exported]


def test_status_filter_and_array_output(tmp_path):
    CaseFactory(public_id="IL-0001", status=Case.Status.PUBLISHED)
    CaseFactory(public_id="IL-0002", status=Case.Status.DRAFT, published_at=None)
    path = tmp_path / "drafts.json"
    call_command("export_cases", "--output", str(path), "--status", "draft", stderr=io.StringIO())
    assert [c["id"] for c in json.loads(path.read_text())] == ["IL-0002"]


def test_empty_export_is_an_empty_array():
    assert json.loads(export()) == []
