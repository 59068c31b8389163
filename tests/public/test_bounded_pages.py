"""#21: no public page grows with its query string. A list is built from a bounded copy
of it (cases.catalogue.bounds), its links too, and many values of a facet fold away."""

import pytest

from cases.catalogue.bounds import MAX_SELECTED
from cases.catalogue.filters import MAX_VALUES
from cases.models import Case, Vocabulary
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, TermFactory

pytestmark = pytest.mark.django_db

# A few hundred kilobytes at the most, whatever the query string.
MAX_PAGE_BYTES = 300_000


@pytest.fixture
def causes():
    terms = [
        TermFactory(vocabulary=Vocabulary.ROOT_CAUSE, slug=f"cause-{n}", label_en=f"Cause {n}")
        for n in range(30)
    ]
    for n, term in enumerate(terms):
        CaseFactory(public_id=f"IL-{n + 1:04d}", root_cause=term)
    refresh_search_text(Case.objects.all())
    return terms


@pytest.mark.parametrize("path", ["/en/cases/", "/ko/cases/", "/en/graph/"])
def test_a_thousand_values_make_a_page_of_a_few_hundred_kilobytes(client, causes, path):
    # Before: 1,000 values of one facet made a list page of 30 MB (each chip linked to
    # the other 999), 100 values 352 kB.
    query = "&".join(f"cause=cause-{n}" for n in range(1000))
    response = client.get(f"{path}?{query}")
    assert response.status_code == 200
    assert len(response.content) < MAX_PAGE_BYTES
    if path.startswith("/en/"):
        assert f"Only the first {MAX_VALUES} values of" in response.content.decode()


def test_the_list_uses_the_first_values_and_says_so(client, causes):
    query = "&".join(f"cause=cause-{n}" for n in range(25))
    response = client.get(f"/en/cases/?{query}")
    listing = response.context["listing"]
    assert listing.page.paginator.count == MAX_VALUES
    assert f"Only the first {MAX_VALUES} values of Cause are used." in listing.notices


def test_values_in_all_are_bounded(client, causes):
    components = [
        TermFactory(vocabulary=Vocabulary.COMPONENT, slug=f"part-{n}") for n in range(MAX_VALUES)
    ]
    query = "&".join(
        [f"cause=cause-{n}" for n in range(MAX_VALUES)]
        + [f"component={t.slug}" for t in components]
        + [f"symptom=s-{n}" for n in range(MAX_VALUES)]
    )
    html = client.get(f"/en/cases/?{query}").content.decode()
    assert html.count("symptom=s-") == 0  # past the forty in all
    assert f"Symptom is left out: a list takes at most {MAX_SELECTED} values in all." in html


def test_parameters_a_list_does_not_read_are_left_out_of_its_links(client, causes):
    junk = "&".join(f"junk{n}={'y' * 300}" for n in range(500))
    response = client.get(f"/en/cases/?cause=cause-1&{junk}")
    html = response.content.decode()
    assert "junk" not in html and len(html) < MAX_PAGE_BYTES
    assert 'href="/ko/cases/?cause=cause-1"' in html  # the other language's link too


def test_many_values_of_a_facet_fold_away(client, causes):
    query = "&".join(f"cause=cause-{n}" for n in range(8))
    html = client.get(f"/en/cases/?{query}").content.decode()
    visible, folded = html.split('class="chip chip-more"')
    assert visible.count('class="chip"') == 5
    assert "Cause: 3 more" in folded and folded.count('class="chip"') == 3
    assert MAX_SELECTED >= 2 * MAX_VALUES
