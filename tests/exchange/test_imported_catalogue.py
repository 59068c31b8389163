"""A catalogue imported as a new user would: English only, free-form categories, names
spelled several ways and an incident the library already has (#23). The catalogue is
tests/exchange/imported_catalogue; the library beside it is the bundled one."""

import io
import re

import pytest
from django.core.management import call_command

from cases.editorial.combining import case_combine
from cases.editorial.names import term_accept
from cases.models import Case, Organisation, Term
from tests.exchange.test_bundled import CASES_DIR, TAXONOMY

pytestmark = pytest.mark.django_db
CATALOGUE = CASES_DIR.parents[1] / "tests" / "exchange" / "imported_catalogue"
# What the import made public before #23, labelled from the catalogue's free-form slugs.
FREE_FORM_LABELS = {"Outage", "Aws", "Us east 1", "Config change", "Security", "Human error"}


def run(*args):
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=out)
    return out.getvalue()


@pytest.fixture
def library():
    run("load_taxonomy", str(TAXONOMY))
    run("import_cases", str(CASES_DIR))


@pytest.fixture
def imported(library):
    return run("import_cases", str(CATALOGUE))


def facet_labels(html):
    """Each facet value's label as a reader sees it, with whether it is marked English."""
    labels = re.findall(r'<span class="facet-label">(.*?)</span> <span class="facet-count">', html)
    return [
        (
            re.sub(
                r"<[^>]+>", "", re.sub(r'<span class="lang-mark">.*?</span>', "", label)
            ).strip(),
            'lang="en"' in label,
        )
        for label in labels
    ]


def every_facet_label(client, language):
    """The labels of every value of every facet of the whole list, each facet expanded."""
    page = client.get(f"/{language}/cases/").content.decode()
    names = re.findall(r'id="facet-([a-z_]+)"', page)
    return [
        label
        for name in names
        for label in facet_labels(
            client.get(f"/{language}/cases/", {"expand": name}).content.decode()
        )
    ]


def test_the_dry_run_lists_each_new_term_and_match_and_writes_nothing(library):
    output = run("import_cases", str(CATALOGUE), "--dry-run")
    assert "config-change → Configuration error (configuration-error)" in output
    assert re.search(r"component: outage \(new\)", output)
    assert "Gitlab → GitLab (gitlab)" in output
    assert not Case.objects.filter(public_id__startswith="IL-90").exists()
    assert not Term.objects.filter(slug="outage").exists()


def test_the_catalogue_imports_whole_and_each_spelling_finds_its_organisation(imported):
    orgs = dict(
        Case.objects.filter(public_id__startswith="IL-90").values_list("public_id", "org__slug")
    )
    assert len(orgs) == 8
    assert orgs["IL-9001"] == "meta"  # "Facebook", an alias of Meta
    assert orgs["IL-9002"] == "gitlab"  # "Gitlab"
    assert orgs["IL-9003"] == orgs["IL-9004"] == "amazon-web-services"  # by name, by alias
    assert orgs["IL-9005"] == orgs["IL-9006"] == "cloudflare"  # two spellings in one run
    assert "Gitlab → GitLab (gitlab)" in imported


def test_free_form_categories_are_held_for_review_and_never_public(client, imported):
    config = Case.objects.get(public_id="IL-9001")
    assert config.root_cause.slug == "configuration-error"  # mapped through its alias
    held = set(Term.objects.filter(reviewed=False).values_list("slug", flat=True))
    assert {"outage", "aws", "us-east-1", "security", "human-error"} <= held
    english = {label for label, _ in every_facet_label(client, "en")}
    assert english and not english & FREE_FORM_LABELS
    graph = client.get("/en/graph.json").content.decode()
    assert not any(f'"{label}"' in graph for label in FREE_FORM_LABELS)
    page = client.get("/en/cases/IL-9003/").content.decode()
    assert "Us east 1" not in page and "Aws" not in page
    assert client.get("/en/cases/IL-9003.json").json()["components"] == ["object-storage"]


def test_korean_pages_show_korean_labels_or_english_ones_marked(client, imported, reviewer):
    term_accept(terms=[Term.objects.get(slug="outage")], user=reviewer)  # labelled in English only
    korean_names = set(Term.objects.values_list("label_ko", flat=True)) | {
        name for org in Organisation.objects.all() for name in (org.name, org.name_ko)
    }
    labels = every_facet_label(client, "ko")
    assert ("Outage", True) in labels
    for label, marked_english in labels:
        assert label in korean_names or re.search("[가-힣]", label) or marked_english, label


def test_accepting_a_held_term_makes_it_public(client, imported, reviewer):
    term_accept(terms=[Term.objects.get(slug="outage")], user=reviewer)
    assert ("Outage", False) in every_facet_label(client, "en")


def test_an_english_only_case_is_honest_about_its_language_and_source(client, imported):
    korean = client.get("/ko/cases/IL-9002/").content.decode()
    assert 'rel="canonical" href="http://testserver/en/cases/IL-9002/"' in korean
    assert 'hreflang="ko"' not in korean
    assert "about.gitlab.com" in korean  # the page names where it came from
    card = client.get("/en/cases/", {"org": "gitlab"}).content.decode()
    assert "**not**" not in card and "**" not in client.get("/en/cases/IL-9002/").content.decode()


def test_the_organisations_have_pages_with_the_imported_cases(client, imported):
    page = client.get("/en/organisations/cloudflare/").content.decode()
    assert "IL-9005" in page and "IL-9006" in page
    meta = client.get("/en/organisations/meta/").content.decode()
    assert "IL-9001" in meta and "IL-1010" in meta and "Facebook" in meta  # an alias


def test_check_your_own_system_asks_only_of_reviewed_factors(client, imported):
    markdown = client.get("/en/check.md").content.decode()
    assert "Human error" not in markdown and "Config change" not in markdown
    assert "?" in markdown


def test_the_catalogue_round_trips_unchanged(imported, tmp_path):
    again = run("import_cases", str(CATALOGUE))
    assert re.search(r"\b0 created\b", again) or "unchanged" in again
    assert Case.objects.filter(public_id__startswith="IL-90").count() == 8


def test_the_incident_the_library_has_is_flagged_and_merges_into_it(client, imported, reviewer):
    # Facebook is Meta's former name, so the same organisation, the same day, a near title.
    assert "IL-9001 looks like IL-1010 (same organisation, same date, similar title)" in imported
    # The others the library has cite the same post-mortems.
    for theirs, ours in [("9002", "1011"), ("9003", "1008"), ("9005", "1009"), ("9007", "1012")]:
        assert f"IL-{theirs} looks like IL-{ours} (same source https://" in imported
    case_combine(
        absorbed=Case.objects.get(public_id="IL-9001"),
        survivor=Case.objects.get(public_id="IL-1010"),
        user=reviewer,
    )
    for language in ("en", "ko"):
        response = client.get(f"/{language}/cases/IL-9001/")
        assert response.status_code == 301
        assert response["Location"].endswith(f"/{language}/cases/IL-1010/")
    page = client.get("/en/cases/IL-1010/").content.decode()
    assert "engineering.fb.com/2021/10/04/networking-traffic/outage/" in page  # its source joined
    assert "IL-9001" not in client.get("/en/organisations/meta/").content.decode()
