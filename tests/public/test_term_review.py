"""An unreviewed term is unknown to the public on every page that names terms (#23, point 1),
and a term without a Korean label is marked as English on Korean pages."""

import re

import pytest

from cases.models import Term, Vocabulary
from tests.factories import CaseFactory, OrganisationFactory, TermFactory
from tests.pages import listed_ids, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported():
    """A published case with a reviewed component and an unreviewed one (as an import
    leaves a slug nobody has labelled), and an unreviewed cause."""
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS", label_ko="DNS")
    aws = TermFactory(
        vocabulary=Vocabulary.COMPONENT, slug="aws", label_en="Aws", label_ko="", reviewed=False
    )
    cause = TermFactory(
        vocabulary=Vocabulary.ROOT_CAUSE,
        slug="security-breach",
        label_en="Security breach",
        label_ko="",
        reviewed=False,
    )
    other = CaseFactory(public_id="IL-0002", with_terms=[dns, aws])
    case = CaseFactory(
        public_id="IL-0001",
        org=OrganisationFactory(slug="acme", name="Acme"),
        root_cause=cause,
        with_terms=[dns, aws],
    )
    return {"case": case, "other": other, "aws": aws, "dns": dns, "cause": cause}


def facet_slugs(response, name):
    facet = next(f for f in response.context["listing"].facets if f.name == name)
    return [value.slug for value in facet.values]


def test_an_unreviewed_term_is_not_public(imported):
    assert set(Term.objects.public().values_list("slug", flat=True)) == {"dns"}


def test_the_list_has_no_facet_value_nor_card_term_of_an_unreviewed_term(client, imported):
    response = client.get("/en/cases/")
    assert facet_slugs(response, "component") == ["dns"]
    assert facet_slugs(response, "cause") == []
    assert "Aws" not in text_of(response)
    assert "Security breach" not in text_of(response)
    assert set(listed_ids(response)) == {"IL-0001", "IL-0002"}


def test_a_filter_naming_an_unreviewed_slug_is_an_unknown_value(client, imported):
    response = client.get("/en/cases/?component=aws")
    assert response.status_code == 200
    assert listed_ids(response) == []
    assert "No case has the component “aws”." in text_of(response)
    assert "Aws" not in text_of(response)
    for url in ("/en/cases.json?component=aws", "/api/v1/cases?cause=security-breach"):
        assert client.get(url).status_code == 200


def test_the_case_page_lists_only_reviewed_terms(client, imported):
    text = text_of(client.get("/en/cases/IL-0001/"))
    assert "DNS" in text
    assert "Aws" not in text and "Security breach" not in text


def test_public_json_leaves_unreviewed_terms_out(client, imported):
    data = client.get("/en/cases/IL-0001.json").json()
    assert data["components"] == ["dns"]
    assert data["root_cause"] is None
    api = client.get("/api/v1/cases/IL-0001").json()
    assert api["components"] == ["dns"]
    terms = client.get("/api/v1/terms").json()
    assert [t["slug"] for t in terms["results"]] == ["dns"]


def test_the_graph_has_no_unreviewed_node(client, imported):
    for tab in ("component", "cause", "case"):
        data = client.get(f"/en/graph.json?tab={tab}").json()
        labels = {node["label"] for node in data["nodes"]}
        assert "Aws" not in labels and "Security breach" not in labels
    # The two cases share a reviewed term and an unreviewed one: the edge counts one.
    case_tab = client.get("/en/graph.json?tab=case").json()
    assert [edge["weight"] for edge in case_tab["edges"]] == [1]


# --- Korean pages ---------------------------------------------------------------------


@pytest.fixture
def english_only_term():
    term = TermFactory(
        vocabulary=Vocabulary.COMPONENT, slug="object-storage", label_en="Object storage"
    )
    Term.objects.filter(pk=term.pk).update(label_ko="")
    term.refresh_from_db()
    CaseFactory(public_id="IL-0001", with_terms=[term])
    return term


ENGLISH_LABEL = re.compile(
    r'<span lang="en">Object storage</span>\s*<span class="lang-mark">\(영어\)</span>'
)


@pytest.mark.parametrize("url", ["/ko/cases/", "/ko/cases/IL-0001/"])
def test_a_korean_page_marks_a_label_shown_in_english(client, english_only_term, url):
    html = client.get(url).content.decode()
    assert ENGLISH_LABEL.search(html), html[:0]


def test_a_korean_page_shows_the_korean_label_unmarked(client, english_only_term):
    Term.objects.filter(pk=english_only_term.pk).update(label_ko="객체 스토리지")
    from cases.caching import public_content_changed

    public_content_changed()
    html = client.get("/ko/cases/IL-0001/").content.decode()
    assert "객체 스토리지" in html
    assert 'class="lang-mark"' not in html


def test_an_english_page_has_no_marker(client, english_only_term):
    html = client.get("/en/cases/IL-0001/").content.decode()
    assert "Object storage" in html and 'class="lang-mark"' not in html


def test_the_korean_graph_marks_an_english_label(client, english_only_term):
    data = client.get("/ko/graph.json?tab=component").json()
    (node,) = data["nodes"]
    assert node["label"] == "Object storage" and node["lang"] == "en"


def test_the_list_query_count_does_not_grow_with_unreviewed_terms(client, imported):
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from cases.caching import public_content_changed

    def queries(url):
        cache.clear()
        client.get(url)  # the facet index built
        cache.clear()
        with CaptureQueriesContext(connection) as counted:
            assert client.get(url).status_code == 200
        return len(counted.captured_queries)

    urls = ["/en/cases/", "/ko/cases/?component=dns", "/en/graph/?tab=case"]
    before = [queries(url) for url in urls]
    for n in range(3, 30):
        held = TermFactory(vocabulary=Vocabulary.COMPONENT, slug=f"held-{n}", reviewed=False)
        CaseFactory(public_id=f"IL-{n:04d}", with_terms=[imported["dns"], held])
    public_content_changed()
    assert [queries(url) for url in urls] == before
