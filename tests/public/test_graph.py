import datetime
import re

import pytest
from django.core.cache import cache

from cases.caching import public_content_changed
from cases.catalogue.vocabularies import CASE_COLOUR, VOCABULARIES
from cases.models import Vocabulary
from cases.public import graph
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def terms():
    make = TermFactory
    return {
        "bug": make(vocabulary=Vocabulary.ROOT_CAUSE, slug="software-bug", label_en="Software bug"),
        "config": make(
            vocabulary=Vocabulary.ROOT_CAUSE,
            slug="configuration-error",
            label_en="Configuration error",
        ),
        "dns": make(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS"),
        "db": make(vocabulary=Vocabulary.COMPONENT, slug="database", label_en="Database"),
        "down": make(vocabulary=Vocabulary.SYMPTOM, slug="outage", label_en="Outage"),
        "overlap": make(vocabulary=Vocabulary.CONTRIBUTING, slug="overlap", label_en="Overlap"),
    }


@pytest.fixture
def cases(terms):
    meta = OrganisationFactory(name="Meta", slug="meta")
    return [
        CaseFactory(
            public_id="IL-0001",
            org=meta,
            root_cause=terms["config"],
            with_terms=[terms["dns"], terms["down"]],
            date=datetime.date(2021, 10, 4),
        ),
        CaseFactory(
            public_id="IL-0002",
            root_cause=terms["config"],
            with_terms=[terms["dns"], terms["db"], terms["down"]],
            date=datetime.date(2022, 1, 1),
        ),
        CaseFactory(
            public_id="IL-0003",
            root_cause=terms["bug"],
            with_terms=[terms["db"], terms["down"], terms["overlap"]],
            date=datetime.date(2023, 1, 1),
        ),
        CaseFactory(
            public_id="IL-0004",
            status="draft",
            published_at=None,
            root_cause=terms["bug"],
            with_terms=[terms["dns"], terms["db"]],
        ),
    ]


def as_maps(data):
    labels = {node["id"]: node["label"] for node in data["nodes"]}
    nodes = {node["label"]: (node["kind"], node["count"]) for node in data["nodes"]}
    edges = {(labels[e["source"]], labels[e["target"]]): e["weight"] for e in data["edges"]}
    return nodes, edges


def test_component_graph_counts_cases_and_shared_cases(client, cases):
    data = client.get("/en/graph.json?tab=component").json()
    nodes, edges = as_maps(data)
    # The draft is not counted anywhere.
    assert nodes["DNS"] == ("component", 2) and nodes["Database"] == ("component", 2)
    assert nodes["Outage"] == ("symptom", 3) and nodes["Configuration error"] == ("cause", 2)
    assert edges[("DNS", "Outage")] == 2
    assert edges[("DNS", "Configuration error")] == 2
    assert edges[("Database", "Software bug")] == 1
    assert edges[("Database", "Overlap")] == 1
    assert ("DNS", "Database") not in edges  # same vocabulary: not joined
    assert data["omitted"] == {"nodes": 0, "edges": 0}
    assert [n for n in data["nodes"] if n["label"] == "DNS"][0]["url"] == "/en/cases/?component=dns"


def test_cause_graph_joins_causes_to_terms(client, cases):
    nodes, edges = as_maps(client.get("/en/graph.json?tab=cause").json())
    assert nodes["Configuration error"] == ("cause", 2) and nodes["Software bug"] == ("cause", 1)
    assert edges[("Configuration error", "Outage")] == 2
    assert edges[("Software bug", "Overlap")] == 1


def test_filters_apply_and_node_links_keep_them(client, cases):
    data = client.get("/en/graph.json?tab=component&org=meta").json()
    nodes, edges = as_maps(data)
    assert nodes == {
        "DNS": ("component", 1),
        "Outage": ("symptom", 1),
        "Configuration error": ("cause", 1),
    }
    dns = [n for n in data["nodes"] if n["label"] == "DNS"][0]
    assert dns["url"] == "/en/cases/?org=meta&component=dns"


def test_case_graph_joins_cases_by_shared_terms(client, cases):
    data = client.get("/ko/graph.json?tab=case").json()
    nodes = {node["id"]: node for node in data["nodes"]}
    assert set(nodes) == {"case:IL-0001", "case:IL-0002", "case:IL-0003"}
    assert nodes["case:IL-0001"]["url"] == "/ko/cases/IL-0001/"
    edges = {(e["source"], e["target"]): e["weight"] for e in data["edges"]}
    pairs = {frozenset(key): weight for key, weight in edges.items()}
    assert pairs[frozenset({"case:IL-0001", "case:IL-0002"})] == 2  # DNS and outage
    assert pairs[frozenset({"case:IL-0002", "case:IL-0003"})] == 2  # database and outage
    assert pairs[frozenset({"case:IL-0001", "case:IL-0003"})] == 1


def test_only_the_strongest_are_drawn_and_the_rest_is_counted(client, cases, monkeypatch):
    monkeypatch.setattr(graph, "MAX_TERM_NODES", 1)
    monkeypatch.setattr(graph, "EDGES_PER_TERM", 1)
    monkeypatch.setattr(graph, "MAX_EDGES", 1)
    data = client.get("/en/graph.json?tab=component").json()
    assert len([n for n in data["nodes"] if n["kind"] == "component"]) == 1
    assert len(data["edges"]) == 1
    assert data["omitted"]["edges"] > 0 and data["omitted"]["nodes"] > 0
    page = client.get("/en/graph/?tab=component").content.decode()
    assert "Showing the strongest" in page


# A graph's queries as rendered, not as cached, once this process's facet index is of the
# current content: the version of the content, and for the case tab its count, its sixty
# cases and the two GROUP BYs of their terms. A term tab counts from the index alone.
GRAPH_QUERIES = {"cause": 1, "component": 1, "symptom": 1, "contributing": 1, "case": 5}


@pytest.mark.parametrize("tab", [tab.name for tab in graph.TABS])
def test_query_count_does_not_grow_with_the_cases(client, terms, tab, django_assert_num_queries):
    url = f"/en/graph.json?tab={tab}&symptom=outage"

    def assert_queries():
        client.get(url)  # builds the facet index of the current content
        cache.clear()
        with django_assert_num_queries(GRAPH_QUERIES[tab]):
            assert client.get(url).status_code == 200

    CaseFactory(root_cause=terms["bug"], with_terms=[terms["dns"], terms["down"]])
    assert_queries()
    for _ in range(30):
        CaseFactory(
            root_cause=terms["config"], with_terms=[terms["dns"], terms["db"], terms["down"]]
        )
    public_content_changed()
    assert_queries()


@pytest.mark.parametrize(
    "query",
    [
        "tab=nope",
        "tab=",
        "tab=case&component=NOT SLUG",
        "from=2019-13-45",
        "q=%00",
        "tab=%3Cscript%3E",
    ],
)
def test_bad_input_gives_an_answer_not_an_error(client, cases, query):
    assert client.get(f"/en/graph.json?{query}").status_code == 200
    assert client.get(f"/en/graph/?{query}").status_code == 200


def test_graph_page_has_a_table_for_screen_readers_and_tabs_that_keep_filters(client, cases):
    html = client.get("/en/graph/?tab=component&org=meta").content.decode()
    assert "<caption>Strongest links</caption>" in html
    assert '<a href="/en/cases/?org=meta&amp;component=dns">DNS</a>' in html
    assert 'href="?org=meta&amp;tab=cause"' in html
    assert 'aria-current="page">Component' in html
    assert "vendor/cytoscape/cytoscape.min.js" in html
    korean = client.get("/ko/graph/?tab=component").content.decode()
    assert "그래프" in korean


def test_list_links_to_the_graph_and_draws_charts(client, cases):
    html = client.get("/en/cases/?org=meta").content.decode()
    assert 'href="/en/graph/?org=meta"' in html
    assert "Cases per year" in html and "Cases per cause" in html
    assert '<th scope="row">2021</th><td>1</td>' in html
    assert "<title>Configuration error: 1</title>" in html


def test_a_year_chart_is_as_wide_as_its_years(client, cases):
    # Without a width of its own, a chart of few years stretched to fill its column.
    def year_chart_width(query):
        html = client.get(f"/en/cases/{query}").content.decode()
        svg = re.search(r'class="chart chart-years">.*?<svg [^>]*width="(\d*)"', html, re.S)
        return int(svg[1] or 0)

    one_year, every_year = year_chart_width("?org=meta"), year_chart_width("")
    assert 0 < one_year < every_year


def test_nodes_and_the_legend_take_their_colours_from_the_vocabularies(client, cases):
    colours = {row.facet: row.colour for row in VOCABULARIES} | {"case": CASE_COLOUR}
    for tab in ("component", "case"):
        nodes = client.get(f"/en/graph.json?tab={tab}").json()["nodes"]
        assert nodes and all(node["colour"] == colours[node["kind"]] for node in nodes)
    html = client.get("/en/graph/").content.decode()
    legend = re.search(r'<ul class="graph-legend".*?</ul>', html, re.S)[0]
    assert "style=" not in legend  # the Content Security Policy refuses inline styles
    for tab in graph.TABS:
        assert f'fill="{tab.colour}"/></svg>{tab.label}</li>' in legend
    assert [tab.name for tab in graph.TABS] == [
        "cause",
        "component",
        "symptom",
        "contributing",
        "case",
    ]
