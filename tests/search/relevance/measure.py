"""The relevance set: known-item queries (queries.json) over the bundled cases and a test
catalogue (catalogue/), each run through the public list as a reader runs it, and the
figures they give: hit@1, hit@5 and the share of queries whose page had no result.

A query is asked of the list's JSON endpoint (`/<language>/cases.json?q=…`), which returns
the same cases in the same order as the list's page, a page at a time. The rank of a query
is the position of the first of its expected cases in that order.

Used by tests/search/test_relevance.py and by scripts/relevance.py (`make relevance`).
"""

import dataclasses
import io
import json
from pathlib import Path
from urllib.parse import urlencode

from django.core.management import call_command
from django.urls import reverse
from django.utils import translation

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
QUERIES = HERE / "queries.json"
CATALOGUE = HERE / "catalogue"
BUNDLED = REPO / "data" / "cases"
TAXONOMY = REPO / "data" / "taxonomy.json"

KINDS = (
    "typo",
    "word-form",
    "extra-word",
    "hangul-name",
    "phrase",
    "organisation",
    "korean",
    "precise",
)
LANGUAGES = ("en", "ko")
# A known item further down than three pages (60 cases) is as good as not found.
PAGES_READ = 3


@dataclasses.dataclass(frozen=True)
class Query:
    q: str
    language: str
    expect: tuple[str, ...]
    kind: str

    def __str__(self):
        return f"[{self.kind}, {self.language}] {self.q}"


@dataclasses.dataclass(frozen=True)
class Outcome:
    query: Query
    rank: int | None  # 1-based position of the first expected case; None: not in PAGES_READ
    count: int  # how many cases the list found
    top: tuple[str, ...]  # the first five ids the list showed

    @property
    def empty(self):
        return self.count == 0

    def hit(self, k):
        return self.rank is not None and self.rank <= k


@dataclasses.dataclass(frozen=True)
class Figures:
    queries: int
    hit_at_1: float
    hit_at_5: float
    no_result: float


def load_queries(path=QUERIES):
    with open(path, encoding="utf-8") as file:
        return [
            Query(
                q=item["q"],
                language=item["language"],
                expect=tuple(item["expect"]),
                kind=item["kind"],
            )
            for item in json.load(file)
        ]


def load_library():
    """The taxonomy, the bundled cases and the test catalogue, as `make load-data` loads
    them; returns what the two imports printed."""
    out = io.StringIO()
    call_command("load_taxonomy", str(TAXONOMY), stdout=io.StringIO())
    call_command("import_cases", str(BUNDLED), stdout=out)
    call_command("import_cases", str(CATALOGUE), stdout=out)
    return out.getvalue()


def list_url(language, q, page):
    with translation.override(language):
        path = reverse("cases:list-json")
    return f"{path}?{urlencode({'q': q, 'page': page})}"


def ask(client, query):
    """The reader's query on the public list: its Outcome."""
    shown, count = [], 0
    for page in range(1, PAGES_READ + 1):
        response = client.get(list_url(query.language, query.q, page))
        if response.status_code != 200:
            raise AssertionError(f"{query}: the list answered {response.status_code}")
        body = response.json()
        count = body["count"]
        shown += [case["id"] for case in body["results"]]
        if any(case_id in query.expect for case_id in shown) or page >= body["pages"]:
            break
    rank = next((n for n, case_id in enumerate(shown, 1) if case_id in query.expect), None)
    return Outcome(query=query, rank=rank, count=count, top=tuple(shown[:5]))


def run(client, queries):
    """Every query asked in turn, with the site's language back to what it was after."""
    with translation.override(translation.get_language()):
        return [ask(client, query) for query in queries]


def figures(outcomes):
    n = len(outcomes)
    return Figures(
        queries=n,
        hit_at_1=sum(o.hit(1) for o in outcomes) / n,
        hit_at_5=sum(o.hit(5) for o in outcomes) / n,
        no_result=sum(o.empty for o in outcomes) / n,
    )


def figures_by_kind(outcomes):
    """{"all": Figures, kind: Figures, ...}, kinds in KINDS order."""
    result = {"all": figures(outcomes)}
    for kind in KINDS:
        of_kind = [o for o in outcomes if o.query.kind == kind]
        if of_kind:
            result[kind] = figures(of_kind)
    return result


def markdown_table(outcomes):
    lines = [
        "| queries | n | hit@1 | hit@5 | no result |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, f in figures_by_kind(outcomes).items():
        label = "**all**" if name == "all" else name
        lines.append(
            f"| {label} | {f.queries} | {f.hit_at_1:.0%} | {f.hit_at_5:.0%} | {f.no_result:.0%} |"
        )
    return "\n".join(lines)


def describe(outcome):
    if outcome.empty:
        where = "no result"
    elif outcome.rank is None:
        where = f"not in the first {PAGES_READ * 20} of {outcome.count}"
    else:
        where = f"rank {outcome.rank} of {outcome.count}"
    return (
        f"{outcome.query}: {where}; expected {', '.join(outcome.query.expect)}; "
        f"shown first {', '.join(outcome.top) or '-'}"
    )


def misses(outcomes, k=5):
    """One line per query whose first expected case is not in the first k."""
    return "\n".join(describe(o) for o in outcomes if not o.hit(k))
