"""The graph of the filtered cases.

For a vocabulary tab, the nodes are that vocabulary's terms found in the filtered cases,
sized by their number of cases, and the terms of the other vocabularies they co-occur
with; an edge's weight is the number of cases two terms share. For the case tab, the
nodes are cases and an edge's weight is the number of terms two cases share.

Either reads the filtered cases through a CatalogueQuery (cases.catalogue.query). A term
tab counts from the facet index (cases.catalogue.facet_index): a pair's shared cases are
the AND of two terms' sets, a few milliseconds for every pair at 100,000 cases. The case
tab's counts are GROUP BYs over its sixty cases. Either way the number of queries is fixed
whatever the number of cases; only the strongest nodes and edges are kept, and the rest
is counted.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from django.db.models import Count, F
from django.urls import reverse
from django.utils.translation import get_language

from cases.catalogue.facet_index import overlaps
from cases.catalogue.filters import SORTS
from cases.catalogue.vocabularies import (
    BY_FACET,
    BY_VALUE,
    CASE_COLOUR,
    CASE_LABEL,
    CASE_TAB,
    VOCABULARIES,
    facet_of,
)
from cases.models import CaseTerm
from cases.rules import LANGUAGES
from cases.templatetags.library import LANGUAGE_MARKS, term_label_parts


class Tab(NamedTuple):
    """What the nodes of a graph are: terms of one vocabulary, or cases."""

    name: str  # the `tab` parameter
    label: str
    colour: str  # of its nodes, and of its swatch in the legend


TABS = [Tab(row.facet, row.label, row.colour) for row in VOCABULARIES if row.graph_tab]
TABS.append(Tab(CASE_TAB, CASE_LABEL, CASE_COLOUR))
MAX_TERM_NODES = 40  # of the tab's own vocabulary
MAX_OTHER_NODES = 24  # terms of the other vocabularies
MAX_EDGES = 90
EDGES_PER_TERM = 2
MAX_CASE_NODES = 60
# The vocabularies a term tab links to: those the graph has tabs of.
GRAPH_VOCABULARIES = [row.value for row in VOCABULARIES if row.graph_tab]


@dataclass
class Graph:
    tab: str
    nodes: list = field(default_factory=list)
    edges: list = field(default_factory=list)
    total_nodes: int = 0
    total_edges: int = 0

    def as_json(self):
        return {
            "tab": self.tab,
            "nodes": self.nodes,
            "edges": self.edges,
            "omitted": {
                "nodes": self.total_nodes - len(self.nodes),
                "edges": self.total_edges - len(self.edges),
            },
        }

    def strongest_links(self, limit=25):
        """For the table that stands in for the drawing."""
        nodes = {node["id"]: node for node in self.nodes}
        return [
            {
                "source": nodes[e["source"]]["label"],
                "source_url": nodes[e["source"]]["url"],
                "source_lang": nodes[e["source"]].get("lang", ""),
                "source_mark": nodes[e["source"]].get("lang_mark", ""),
                "target": nodes[e["target"]]["label"],
                "target_url": nodes[e["target"]]["url"],
                "target_lang": nodes[e["target"]].get("lang", ""),
                "target_mark": nodes[e["target"]].get("lang_mark", ""),
                "weight": e["weight"],
            }
            for e in sorted(self.edges, key=lambda e: -e["weight"])[:limit]
        ]


def term_node_id(vocabulary, term_id):
    return f"{vocabulary}:{term_id}"


def filtered_url(query, facet, slug):
    """The list with the current filters and this term added."""
    data = query.copy()
    values = data.getlist(facet)
    if slug not in values:
        data.setlist(facet, values + [slug])
    data.pop("page", None)
    data.pop("tab", None)
    return f"{reverse('cases:list')}?{data.urlencode()}" if data else reverse("cases:list")


def term_sets(query):
    """({(vocabulary, term id): the listed cases with that term, a CaseSet of the facet
    index}, {term id: term}) for the graph's vocabularies, leaving out terms no listed
    case has."""
    index, listed = query.index, query.listed()
    sets, terms = {}, {}
    for term in query.terms:
        if term.vocabulary in GRAPH_VOCABULARIES and (
            found := index.cases_with_term(term) & listed
        ):
            sets[(term.vocabulary, term.pk)] = found
            terms[term.pk] = term
    return sets, terms


def co_occurrences(sets, vocabulary):
    """{((vocabulary, term), (vocabulary, term)): shared cases} between the tab's terms
    and every other graph vocabulary's terms."""
    own = {key: cases for key, cases in sets.items() if key[0] == vocabulary}
    others = {key: cases for key, cases in sets.items() if key[0] != vocabulary}
    return overlaps(own, others)


def term_graph(tab, query):
    vocabulary = BY_FACET[tab].value
    sets, terms = term_sets(query)
    counts = {key: len(found) for key, found in sets.items()}
    pairs = co_occurrences(sets, vocabulary)

    own = sorted(
        (key for key in counts if key[0] == vocabulary), key=lambda key: (-counts[key], key[1])
    )
    kept_own = set(own[:MAX_TERM_NODES])
    edges = sorted(
        ((a, b, n) for (a, b), n in pairs.items() if a in kept_own),
        key=lambda edge: (-edge[2], edge[0][1], edge[1][1]),
    )
    # Every drawn term keeps its strongest links, so none floats alone; the remaining room
    # goes to the strongest links overall, as long as they bring few new terms.
    chosen, seen_own = [], defaultdict(int)
    for edge in edges:
        if seen_own[edge[0]] < EDGES_PER_TERM:
            chosen.append(edge)
            seen_own[edge[0]] += 1
    others = {edge[1] for edge in chosen}
    for edge in edges:
        if len(chosen) >= MAX_EDGES:
            break
        if edge in chosen:
            continue
        if edge[1] in others or len(others) < MAX_OTHER_NODES:
            chosen.append(edge)
            others.add(edge[1])
    kept_edges = sorted(chosen, key=lambda edge: (-edge[2], edge[0][1], edge[1][1]))
    other_terms = {b for (_a, b) in pairs}

    keys = kept_own | {edge[1] for edge in kept_edges}
    nodes = [
        term_node(key, terms[key[1]], counts.get(key, 0), query)
        for key in sorted(keys, key=lambda key: (key[0] != vocabulary, -counts.get(key, 0), key[1]))
        if key[1] in terms
    ]
    return Graph(
        tab=tab,
        nodes=nodes,
        edges=[
            {"source": term_node_id(*a), "target": term_node_id(*b), "weight": n}
            for a, b, n in kept_edges
        ],
        total_nodes=len(own) + len(other_terms),
        total_edges=len(pairs),
    )


def term_node(key, term, count, query):
    label, language = term_label_parts(term)
    node = {
        "id": term_node_id(*key),
        "kind": facet_of(key[0]),
        "label": label,
        "count": count,
        "url": filtered_url(query.data, facet_of(key[0]), term.slug),
        "colour": BY_VALUE[key[0]].colour,
    }
    if language:  # a label not in the page's language (a Korean page, no Korean label)
        node["lang"] = language
        node["lang_mark"] = str(LANGUAGE_MARKS.get(language, ""))
    return node


def case_graph(query):
    """The most recent filtered cases, joined by the terms they share."""
    newest = query.page(
        1,
        size=MAX_CASE_NODES,
        fields=("pk", "public_id", "title_en", "title_ko"),
        ordering=SORTS["newest"],
    )
    total, chosen = newest.paginator.count, newest.object_list
    ids = [row["pk"] for row in chosen]
    shared = (
        # Shared terms the public may see: not those an import holds for review.
        CaseTerm.objects.filter(
            case__in=ids,
            term__reviewed=True,
            term__case_terms__case__in=ids,
            case__lt=F("term__case_terms__case"),
        )
        .order_by()
        .values("case_id", other=F("term__case_terms__case_id"))
        .annotate(n=Count("term_id"))
        .order_by("-n", "case_id", "other")
    )
    edges = list(shared)
    counts = dict(
        CaseTerm.objects.filter(case__in=ids, term__reviewed=True)
        .order_by()
        .values_list("case_id")
        .annotate(n=Count("term_id"))
    )
    language = get_language()
    nodes = [
        {
            "id": f"case:{row['public_id']}",
            "kind": "case",
            "label": (row[f"title_{language}"] if language in LANGUAGES else "")
            or row["title_en"]
            or row["title_ko"],
            "count": counts.get(row["pk"], 0),
            "url": reverse("cases:detail", args=[row["public_id"]]),
            "colour": CASE_COLOUR,
        }
        for row in chosen
    ]
    id_of = {row["pk"]: f"case:{row['public_id']}" for row in chosen}
    return Graph(
        tab="case",
        nodes=nodes,
        edges=[
            {"source": id_of[e["case_id"]], "target": id_of[e["other"]], "weight": e["n"]}
            for e in edges[:MAX_EDGES]
        ],
        total_nodes=total,
        total_edges=len(edges),
    )


def build_graph(tab, query):
    """The graph of one tab of a CatalogueQuery's cases."""
    if tab == "case":
        return case_graph(query)
    return term_graph(tab, query)


def graph_tab(value):
    """The tab asked for, if there is one of that name, else the first."""
    return value if value in {tab.name for tab in TABS} else TABS[0].name
