"""The list's sidebar of facet values and its charts, which a change renews on every list
and which are built in Python (cases.templatetags.list_parts): each link adds or removes
its one value and keeps the rest of the query, counts are right, and every label is
escaped."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.models import Vocabulary
from tests.factories import CaseFactory, TermFactory

pytestmark = pytest.mark.django_db

PARTS = [f"part-{letter}" for letter in "abcdefghijklmnop"]  # 16: more than a facet shows


@pytest.fixture
def parts_library():
    parts = [TermFactory(vocabulary=Vocabulary.COMPONENT, slug=slug) for slug in PARTS]
    cause = TermFactory(
        vocabulary=Vocabulary.ROOT_CAUSE,
        slug="odd-cause",
        label_en="<b>Disk & co</b>, and more of it",
    )
    for n in range(24):
        CaseFactory(
            public_id=f"IL-{5000 + n}",
            severity=["low", "high"][n % 2],
            root_cause=cause if n % 3 == 0 else None,
            with_terms=list(dict.fromkeys([parts[n % 16], parts[(n * 7) % 16]])),
        )
    return parts


def sidebar(html):
    """{facet name: [(href, selected, label, count)]} of the list's sidebar."""
    aside = html[html.index('<aside class="facets"') :]
    found = {}
    for name, body in re.findall(
        r'<section class="facet" aria-labelledby="facet-(\w+)">(.*?)</section>', aside, re.S
    ):
        found[name] = [
            (href.replace("&amp;", "&"), bool(current), label, int(count))
            for href, current, label, count in re.findall(
                r'<a href="([^"]*)" class="facet-value[^"]*"( aria-current="true")?>\s*'
                r'<span class="facet-check" aria-hidden="true">✓?</span>\s*'
                r'<span class="facet-label">(.*?)</span> <span class="facet-count">(\d+)</span>',
                body,
                re.S,
            )
        ]
    return found


def query_of(url):
    return {k: v for k, v in parse_qs(urlsplit(url).query).items() if k != "page"}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    chosen=st.lists(st.sampled_from(PARTS), max_size=3, unique=True),
    severity=st.sampled_from([None, "low", "high"]),
    page=st.sampled_from([None, "2"]),
)
def test_each_facet_link_adds_or_removes_its_own_value_and_keeps_the_rest(
    client, parts_library, chosen, severity, page
):
    query = [("component", slug) for slug in chosen]
    query += [("severity", severity)] if severity else []
    query += [("page", page)] if page else []
    url = "/en/cases/?" + "&".join(f"{k}={v}" for k, v in query)
    response = client.get(url)
    assert response.status_code == 200
    before = query_of(url)
    for name, links in sidebar(response.content.decode()).items():
        for href, selected, _label, count in links:
            after = query_of(href)
            assert {k: v for k, v in after.items() if k != name} == {
                k: v for k, v in before.items() if k != name
            }, href
            was, now = before.get(name, []), after.get(name, [])
            if selected:  # removes its value, and only it
                assert set(was) - set(now) and len(was) - len(now) == 1, href
            else:  # adds its value after the others
                assert now[: len(was)] == was and len(now) == len(was) + 1, href
            assert count >= 0


def test_the_counts_are_those_of_the_cases_each_link_lists(client, parts_library):
    links = sidebar(client.get("/en/cases/?severity=high").content.decode())
    for href, _selected, _label, count in links["component"][:4]:
        listed = client.get(href).content.decode()
        assert f"{count} case" in listed, href


def test_a_facet_shows_its_most_common_values_and_a_link_to_the_rest(client, parts_library):
    page = client.get("/en/cases/").content.decode()
    assert len(sidebar(page)["component"]) == 12
    more = re.search(r'<a class="facet-more" href="([^"]*)">Show 4 more</a>', page)
    assert more
    expanded = client.get(more.group(1).replace("&amp;", "&")).content.decode()
    assert len(sidebar(expanded)["component"]) == 16
    assert (
        'class="facet-more"'
        not in expanded.split('<aside class="facets"')[1]
        .split('id="facet-component"')[1]
        .split("</section>")[0]
    )


def test_labels_are_escaped_in_the_sidebar_and_the_charts(client, parts_library):
    page = client.get("/en/cases/").content.decode()
    assert "<b>Disk" not in page
    escaped = "&lt;b&gt;Disk &amp; co&lt;/b&gt;, and more of it"
    sidebar_labels = [label for _h, _s, label, _c in sidebar(page)["cause"]]
    assert escaped in sidebar_labels
    charts = page[
        page.index('<div class="charts">') : page.index(
            "</div>", page.index('<div class="charts">')
        )
    ]
    assert charts.count(escaped) == 2  # the bar's title and the table beside the chart
    assert "&lt;b&gt;Disk &amp; co&lt;/b&gt;, and m…" in charts  # its axis, cut short


def test_a_list_without_cases_says_so_in_each_facet(client, parts_library):
    page = client.get("/en/cases/?q=zzzzqqqq").content.decode()
    aside = page[page.index('<aside class="facets"') :]
    assert aside.count('<li class="muted">None in these cases</li>') >= 3
