"""A case page's provenance: who wrote the case, who reviewed it, where it came from and
under which licence its text is; said from the case's fields, never more."""

import datetime
import io
import json
import re

import pytest
from django.core.management import CommandError, call_command

from cases.models import Case
from tests.factories import CaseFactory
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db

CC_BY = "https://creativecommons.org/licenses/by/4.0/"


def provenance_of(response):
    html = response.content.decode()
    match = re.search(r'<section class="section provenance".*?</section>', html, flags=re.S)
    assert match, "the page has no provenance section"
    return match.group(0)


def words(html):
    """The text of some HTML, its tags and runs of spaces each one space."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def import_case(data, write_json, name="c.json"):
    out = io.StringIO()
    call_command("import_cases", str(write_json(name, data)), stdout=out)
    return out.getvalue()


@pytest.fixture
def bundled(seed_case, write_json):
    call_command("load_taxonomy", "data/taxonomy.json", stdout=io.StringIO())
    import_case(seed_case, write_json)
    return Case.objects.get(public_id="IL-0585")


@pytest.fixture
def from_another_catalogue(seed_case, write_json):
    """IL-0585 as another catalogue would give it: a person's text under its own licence."""
    seed_case.update(
        url="https://catalogue.example.org/incidents/42",
        licence="CC-BY-SA-4.0",
        review={
            "written_by": "Ada Lovelace",
            "reviewed_at": "2024-05-01T09:30:00Z",
            "reviewed_by": "Rita Park",
        },
    )
    call_command("load_taxonomy", "data/taxonomy.json", stdout=io.StringIO())
    import_case(seed_case, write_json)
    return Case.objects.get(public_id="IL-0585")


def test_a_bundled_case_says_it_was_machine_drafted_unreviewed_imported_and_cc_by(client, bundled):
    section = provenance_of(client.get("/en/cases/IL-0585/"))
    text = words(section)
    assert "Written by Drafted with an AI model from the cited sources" in text
    assert "Review Not yet reviewed by a person" in text
    assert "Origin Imported from benchlet.com" in text
    assert '<a href="https://benchlet.com/incidentlib/app/cases/IL-0585"' in section
    assert f'<a href="{CC_BY}" rel="license noopener noreferrer">CC BY 4.0</a>' in section
    assert "the Incident Library's own text" in text
    assert "session" not in text  # the field's value is said in words, not shown raw


def test_the_bundled_case_says_the_same_in_korean(client, bundled):
    section = provenance_of(client.get("/ko/cases/IL-0585/"))
    text = words(section)
    assert "출처와 저작" in text
    assert "인용한 자료를 바탕으로 AI 모델이 초안을 썼습니다" in text
    assert "아직 사람이 검토하지 않았습니다" in text
    assert re.search(
        r'<a href="https://benchlet.com/[^"]*"[^>]*>benchlet.com</a>에서 가져왔습니다', section
    )
    assert "Incident Library가 직접 쓴 글" in text and "CC BY 4.0" in text
    assert "Drafted" not in text


def test_a_case_from_another_catalogue_shows_its_writer_reviewer_source_and_licence(
    client, from_another_catalogue
):
    section = provenance_of(client.get("/en/cases/IL-0585/"))
    text = words(section)
    assert "Written by Ada Lovelace" in text
    assert "Reviewed by Rita Park on 2024-05-01" in text
    assert "Imported from catalogue.example.org" in text
    assert (
        '<a href="https://spdx.org/licenses/CC-BY-SA-4.0.html" '
        'rel="license noopener noreferrer">CC-BY-SA-4.0</a>'
    ) in section
    assert "text reused from catalogue.example.org under its licence" in text
    assert "CC BY 4.0" not in text and "own text" not in text and "AI model" not in text
    korean = words(provenance_of(client.get("/ko/cases/IL-0585/")))
    assert "catalogue.example.org의 글을 그 라이선스에 따라 가져와 씀" in korean


def test_the_licence_goes_out_with_the_case_as_it_came_in(client, from_another_catalogue):
    data = json.loads(client.get("/en/cases/IL-0585.json").content)
    assert data["licence"] == "CC-BY-SA-4.0"
    assert data["url"] == "https://catalogue.example.org/incidents/42"


def test_a_case_that_says_nothing_of_its_origin_is_not_given_one(client):
    CaseFactory(public_id="IL-0007")
    section = provenance_of(client.get("/en/cases/IL-0007/"))
    text = words(section)
    assert "Written by not recorded" in text
    assert "Not yet reviewed by a person" in text
    assert "Written for the Incident Library" in text and "Imported" not in text
    assert "AI model" not in text and "reused" not in text
    assert "CC BY 4.0" in text


def test_a_licence_of_the_catalogues_own_is_named_without_a_link(client):
    CaseFactory(
        public_id="IL-0008",
        written_by="Kim",
        reviewed_by="Lee",
        reviewed_at=datetime.datetime(2025, 3, 4, tzinfo=datetime.UTC),
        licence="LicenseRef-Acme-Terms",
    )
    section = provenance_of(client.get("/en/cases/IL-0008/"))
    text = words(section)
    assert "Written by Kim" in text and "Reviewed by Lee on 2025-03-04" in text
    assert "LicenseRef-Acme-Terms" in text and "spdx.org" not in section
    # No address at a catalogue: the page does not name one.
    assert "text reused from another catalogue under its licence" in text


def test_every_page_links_the_content_licence(client):
    html = client.get("/en/cases/").content.decode()
    assert f'<a href="{CC_BY}" rel="license">Text: CC BY 4.0</a>' in html
    assert "글: CC BY 4.0" in client.get("/ko/cases/").content.decode()


def test_a_bad_licence_is_refused_by_the_import_with_its_rule(seed_case, write_json):
    seed_case["licence"] = "CC BY 4.0"
    errors = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_cases", str(write_json("c.json", seed_case)), stderr=errors)
    assert "IL-0585: licence: 'CC BY 4.0' is not an SPDX licence identifier" in errors.getvalue()
    assert not Case.objects.exists()


def test_a_case_without_a_licence_reimports_unchanged(seed_case, write_json):
    """The field is new: cases imported before it must not look edited since."""
    call_command("load_taxonomy", "data/taxonomy.json", stdout=io.StringIO())
    import_case(seed_case, write_json)
    seed_case["licence"] = None
    assert "unchanged" in import_case(seed_case, write_json, "again.json")


def test_a_revision_keeps_the_licence_and_may_change_it(client, editor, reviewer):
    case = CaseFactory(public_id="IL-0009", licence="CC-BY-SA-4.0", created_by=editor)
    approve_edit(case, editor, reviewer, severity="high")
    case.refresh_from_db()
    assert case.licence == "CC-BY-SA-4.0"
    approve_edit(case, editor, reviewer, licence="MIT")
    assert "https://spdx.org/licenses/MIT.html" in provenance_of(client.get("/en/cases/IL-0009/"))
