"""Hostile text in every field of a case is shown as text, never run as markup; and an unsafe
link can never be stored, whichever way it comes in (importer, admin form, model validation)."""

import datetime
import io
import json
import re
import xml.etree.ElementTree as ET

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from cases.models import Case, CaseStep, Source, Vocabulary
from cases.search.text import refresh_search_text
from tests.admin_forms import change_form_data
from tests.factories import (
    CaseFactory,
    CaseStepFactory,
    OrganisationFactory,
    SourceFactory,
    TermFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

MARKUP = "<script>alert(1)</script>"
ATTRIBUTE = '"><img src=x onerror=alert(1)>'
LINK = "javascript:alert(document.cookie)"
RIGHT_TO_LEFT = "\u202eevil"
HOSTILE = f"{MARKUP} {ATTRIBUTE} {LINK} 'single' \"double\" {RIGHT_TO_LEFT}"
LONG = f"{HOSTILE} {'x' * 20_000} end of the long text"

TEXT_FIELDS = [
    "summary",
    "trigger",
    "detection",
    "lessons",
    "symptoms_text",
    "impact_scope",
    "impact_users",
    "impact_region",
]
# href="javascript:..., with any quoting, spacing or case.
JAVASCRIPT_HREF = re.compile(r"""href\s*=\s*["']?\s*javascript:""", re.IGNORECASE)
UNSAFE_URLS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "\tjavascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/x",
    "file:///etc/passwd",
]
ONLY_HTTP = "only http and https links are allowed"


def hostile_case(public_id, status, org, terms):
    texts = {f"{field}_{lang}": HOSTILE for field in TEXT_FIELDS for lang in ("en", "ko")}
    texts.update(summary_en=LONG, summary_ko=LONG)
    case = CaseFactory(
        public_id=public_id,
        status=status,
        published_at=timezone.now() if status == Case.Status.PUBLISHED else None,
        org=org,
        title_en=HOSTILE,
        title_ko=HOSTILE,
        root_cause=terms[0],
        written_by=HOSTILE,
        reviewed_by=HOSTILE,
        reviewed_at=timezone.now(),
        with_terms=terms[1:],
        **texts,
    )
    for kind in CaseStep.Kind.values:
        CaseStepFactory(case=case, kind=kind, text_en=HOSTILE, text_ko=HOSTILE)
    # A source's kind is a slug however it is stored (the database checks it too).
    SourceFactory(case=case, url="https://example.org/pm?a=1&b=2", kind="postmortem")
    return case


@pytest.fixture
def hostile():
    """A published case and a draft whose every text, label and name is hostile."""
    org = OrganisationFactory(name=HOSTILE, slug="hostile-org")
    terms = [
        TermFactory(
            vocabulary=vocabulary,
            slug=f"hostile-{vocabulary.replace('_', '-')}",
            label_en=HOSTILE,
            label_ko=HOSTILE,
            aliases_en=HOSTILE,
            description=HOSTILE,
        )
        for vocabulary in Vocabulary.values
    ]
    published = hostile_case("IL-0666", Case.Status.PUBLISHED, org, terms)
    # A second case sharing the terms, so that the graph has links to name.
    CaseFactory(public_id="IL-0665", org=org, with_terms=terms[1:])
    draft = hostile_case("IL-0667", Case.Status.DRAFT, org, terms)
    refresh_search_text(Case.objects.all())
    return {"published": published, "draft": draft}


@pytest.fixture
def superuser(client):
    client.force_login(UserFactory(username="root", is_superuser=True))
    return client


def assert_escaped(html, where):
    assert MARKUP not in html, f"raw <script> in {where}"
    assert "<img src=x" not in html, f"raw <img> in {where}"
    assert escape(MARKUP) in html, f"no escaped text in {where}"
    assert not JAVASCRIPT_HREF.search(html), f'href="javascript: in {where}'


PUBLIC_PAGES = [
    "/en/cases/",
    "/ko/cases/",
    "/en/cases/?q=script",
    "/en/cases/?component=hostile-component&org=hostile-org",
    "/en/cases/IL-0666/",
    "/ko/cases/IL-0666/",
    "/en/graph/",
    "/en/graph/?tab=component",
    "/en/graph/?tab=case",
]


@pytest.mark.parametrize("url", PUBLIC_PAGES)
def test_public_pages_show_hostile_text_escaped(client, hostile, url):
    response = client.get(url)
    assert response.status_code == 200
    assert_escaped(response.content.decode(), url)


def test_the_case_page_shows_the_long_text_whole(client, hostile):
    html = client.get("/en/cases/IL-0666/").content.decode()
    # The texts are Markdown, escaped by its renderer: <, > and &, not quotes (in text they
    # need no escaping).
    assert escape(LONG).replace("&quot;", '"').replace("&#x27;", "'") in html
    assert RIGHT_TO_LEFT in html  # shown as the character it is, inside escaped text


@pytest.mark.parametrize(
    "url", ["/en/cases/IL-0666.json", "/ko/cases/IL-0666.json", "/en/cases.json"]
)
def test_json_gives_the_text_back_exactly_and_is_never_sniffed_as_html(client, hostile, url):
    response = client.get(url)
    assert response["Content-Type"] == "application/json"
    assert response["X-Content-Type-Options"] == "nosniff"
    data = response.json()
    (case,) = [c for c in data.get("results", [data]) if c["id"] == "IL-0666"]
    assert case["title"] == {"en": HOSTILE, "ko": HOSTILE}
    assert case["summary"] == {"en": LONG, "ko": LONG}
    assert case["org"] == HOSTILE
    assert case["remediation"] == [{"en": HOSTILE, "ko": HOSTILE}]
    assert case["sources"][0]["url"] == "https://example.org/pm?a=1&b=2"
    assert case["review"]["written_by"] == HOSTILE


def test_graph_json_gives_labels_back_exactly(client, hostile):
    response = client.get("/en/graph.json?tab=component")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert HOSTILE in [node["label"] for node in response.json()["nodes"]]


def feed_entry(client):
    response = client.get("/en/feed.atom")
    assert response.status_code == 200
    xml = response.content.decode()
    assert MARKUP not in xml and "<img src=x" not in xml
    namespace = {"atom": "http://www.w3.org/2005/Atom"}
    (entry,) = [
        e
        for e in ET.fromstring(response.content).findall("atom:entry", namespace)
        if "IL-0666" in e.find("atom:title", namespace).text
    ]
    return entry, namespace


def test_atom_feed_title_and_author_are_text(client, hostile):
    entry, ns = feed_entry(client)
    title = entry.find("atom:title", ns)
    assert title.get("type", "text") == "text"
    assert title.text == f"IL-0666: {HOSTILE}"
    assert entry.find("atom:author/atom:name", ns).text == HOSTILE


def test_atom_feed_summary_is_text_for_feed_readers(client, hostile):
    entry, ns = feed_entry(client)
    summary = entry.find("atom:summary", ns)
    # A feed reader renders the element's text as HTML when type="html": it must hold no markup.
    assert summary.get("type", "text") == "text" or MARKUP not in summary.text


ADMIN_PAGES = [
    ("admin:cases_case_change", "published"),  # read-only: a published case
    ("admin:cases_case_change", "draft"),  # the editable form
    ("admin:cases_case_changelist", None),
    ("admin:cases_term_changelist", None),
    ("admin:cases_organisation_changelist", None),
]


@pytest.mark.parametrize("name,which", ADMIN_PAGES)
def test_admin_shows_hostile_text_escaped(superuser, hostile, name, which):
    url = reverse(name, args=[hostile[which].pk] if which else [])
    response = superuser.get(url)
    assert response.status_code == 200
    assert_escaped(response.content.decode(), url)


def test_admin_change_form_keeps_the_text_exactly(superuser, hostile):
    form = superuser.get(reverse("admin:cases_case_change", args=[hostile["draft"].pk]))
    data = change_form_data(form)
    assert data["title_en"] == HOSTILE and data["summary_ko"] == LONG


# --- an unsafe link is never stored --------------------------------------------------


def import_case(seed_case, write_json, **changes):
    path = write_json("c.json", {**seed_case, **changes})
    stderr = io.StringIO()
    with pytest.raises(CommandError, match="Nothing was imported"):
        call_command("import_cases", str(path), stdout=io.StringIO(), stderr=stderr)
    return stderr.getvalue()


def link_fields(url):
    return {
        "sources[0].url": {"sources": [{"url": url, "kind": "blog", "archived": None}]},
        "sources[0].archived": {
            "sources": [{"url": "https://example.org/", "kind": None, "archived": url}]
        },
        "docs[0]": {"docs": [url]},
        "url": {"url": url},
    }


@pytest.mark.parametrize("url", UNSAFE_URLS)
def test_importer_refuses_unsafe_links_in_every_link_field(seed_case, write_json, url):
    for path, changes in link_fields(url).items():
        assert f"IL-0585: {path}: {ONLY_HTTP}" in import_case(seed_case, write_json, **changes)
    assert not Case.objects.exists() and not Source.objects.exists()


@pytest.mark.parametrize("url", UNSAFE_URLS)
def test_admin_form_refuses_unsafe_links(superuser, url):
    case = CaseFactory(status=Case.Status.DRAFT, published_at=None)
    SourceFactory(case=case, url="https://example.org/pm")
    change = reverse("admin:cases_case_change", args=[case.pk])
    page = superuser.get(change)
    for field, value in [
        ("sources-0-url", url),
        ("sources-0-archived", url),
        ("source_url", url),
        ("docs", json.dumps([url])),
    ]:
        response = superuser.post(change, change_form_data(page, **{field: value}))
        assert response.status_code == 200, field  # the form again, not a redirect
        assert ONLY_HTTP in response.content.decode(), field
    case.refresh_from_db()
    assert case.source_url == "" and case.docs == []
    assert list(case.sources.values_list("url", "archived")) == [("https://example.org/pm", "")]


@pytest.mark.parametrize("url", UNSAFE_URLS)
def test_model_validation_refuses_unsafe_links(url):
    case = CaseFactory()
    checks = [
        (Source(case=case, url=url), "url"),
        (Source(case=case, url="https://example.org/", archived=url), "archived"),
        (Case(**{**model_fields(case), "source_url": url}), "source_url"),
        (Case(**{**model_fields(case), "docs": [url]}), "docs"),
    ]
    for instance, field in checks:
        with pytest.raises(ValidationError) as refused:
            instance.full_clean(validate_unique=False, validate_constraints=False)
        assert any(ONLY_HTTP in message for message in refused.value.message_dict[field]), field


def model_fields(case):
    return {
        "public_id": "IL-0777",
        "org": case.org,
        "date": datetime.date(2024, 1, 1),
        "title_en": "A title",
    }
