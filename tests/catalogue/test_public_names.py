"""Terms and organisations that only drafts use are unknown to the public: the same notice as
an unknown slug, no label in a chip, no suggestion, nothing in the JSON or the graph."""

import pytest

from cases.models import Case, Vocabulary
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db

SECRET_ORG = "Project Nightjar Holdings"
SECRET_TERM = "Quantum flux capacitor"


@pytest.fixture
def library():
    public_org = OrganisationFactory(name="Acme", slug="acme")
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS")
    CaseFactory(
        public_id="IL-0001", org=public_org, title_en="Nightjar flux outage", with_terms=[dns]
    )
    secret_org = OrganisationFactory(name=SECRET_ORG, slug="nightjar")
    secret_term = TermFactory(
        vocabulary=Vocabulary.COMPONENT, slug="flux-capacitor", label_en=SECRET_TERM
    )
    for status in (Case.Status.DRAFT, Case.Status.IN_REVIEW, Case.Status.WITHDRAWN):
        CaseFactory(
            org=secret_org,
            status=status,
            published_at=None,
            title_en="Unpublished",
            with_terms=[secret_term],
        )
    refresh_search_text(Case.objects.all())


@pytest.mark.parametrize(
    "query, facet, slug",
    [
        ("org=nightjar", "organisation", "nightjar"),
        ("component=flux-capacitor", "component", "flux-capacitor"),
    ],
)
def test_a_draft_only_name_is_an_unknown_value(client, library, query, facet, slug):
    html = client.get(f"/en/cases/?{query}").content.decode()
    assert SECRET_ORG not in html and SECRET_TERM not in html
    assert f"No case has the {facet} “{slug}”." in html
    unknown = client.get(f"/en/cases/?{query.split('=')[0]}=no-such-value").content.decode()
    assert "No case has the" in unknown


def test_suggestions_name_only_what_the_public_sees(client, library):
    html = client.get("/en/cases/?q=nightjar+holdings+quantum+flux+capacitor").content.decode()
    assert SECRET_ORG not in html and SECRET_TERM not in html


@pytest.mark.parametrize(
    "url",
    [
        "/en/cases.json?org=nightjar",
        "/en/graph/?component=flux-capacitor",
        "/en/graph.json?tab=component",
        "/en/graph.json?tab=cause&org=nightjar",
    ],
)
def test_nothing_else_names_them_either(client, library, url):
    text = client.get(url).content.decode()
    assert SECRET_ORG not in text and SECRET_TERM not in text
