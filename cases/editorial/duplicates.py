"""Cases that may be one incident told twice: the importer's warnings, the admin's notice
and its changelist filter all ask here.

Two cases look alike when
- a source of one names the same page as a source of the other (their address keys,
  cases.addresses, are equal: http or https, `www.`, a trailing slash and tracking
  parameters aside), found by the index on Source.url_key; or
- they are of the same organisation, dated at most DATE_WINDOW apart, and their titles
  share at least MIN_SHARED_WORDS content words, which are at least TITLE_OVERLAP of the
  shorter title's. The overlap of the shorter rather than the Jaccard index of both: a
  catalogue's title is often a few words ("Facebook outage of October 2021") where ours is
  a sentence. The organisation's and the date's index find the candidates; only their
  titles are compared, in Python.

Cases a working copy holds (pending revisions) count as their case; cases already merged
into another are never a duplicate again. A warning only: an editor decides, and merges
(cases.editorial.combining).
"""

import datetime
import re
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cases.models import Case, Source

DATE_WINDOW = datetime.timedelta(days=3)
TITLE_OVERLAP = 0.5
MIN_SHARED_WORDS = 2
# Cases compared a query; three parameters each stay under SQLite's limit on parameters.
CHUNK = 250
QUERY_CHUNK = 900

# Words that say nothing of which incident a title tells.
STOP_TEXT = (
    "a an and are as at be by for from had has have in into is it its of off on or out over "
    "the their then this to was were when which while with"
)
STOP_WORDS = frozenset(STOP_TEXT.split())
WORD = re.compile(r"\w+")


def title_words(title):
    """The content words of a title, casefolded, a possessive's `'s` dropped."""
    words = set()
    for word in WORD.findall(re.sub(r"['’]s\b", "", (title or "").casefold())):
        # Korean and other non-Latin words carry meaning in two characters.
        if word not in STOP_WORDS and (len(word) >= 3 or (len(word) == 2 and not word.isascii())):
            words.add(word)
    return words


def titles_near(one, other):
    """Whether two cases' titles (word sets, title_words) look like one incident's."""
    shared = len(one & other)
    smaller = min(len(one), len(other))
    return shared >= MIN_SHARED_WORDS and shared >= TITLE_OVERLAP * smaller


@dataclass(frozen=True)
class Resemblance:
    """`case_id` looks like `other_id`: both cite `source` (the other's spelling of it), or
    they are of one organisation `days_apart` days apart with near titles."""

    case_id: str
    other_id: str
    other_pk: int
    source: str = ""
    days_apart: int | None = None

    def reason(self):
        if self.source:
            return _("same source %(url)s") % {"url": self.source}
        if self.days_apart == 0:
            apart = _("same date")
        else:
            apart = ngettext("%(days)s day apart", "%(days)s days apart", self.days_apart) % {
                "days": self.days_apart
            }
        return _("same organisation, %(apart)s, similar title") % {"apart": apart}

    def __str__(self):
        return _("%(case)s looks like %(other)s (%(reason)s)") % {
            "case": self.case_id,
            "other": self.other_id,
            "reason": self.reason(),
        }


def candidates():
    """The cases another may be a duplicate of: cases themselves, not merged away."""
    return Case.objects.live().filter(merged_into__isnull=True)


def resemblances(pks):
    """What the cases with these primary keys look like: a Resemblance for each pair, once
    (of two cases both among `pks`, the later id looks like the earlier), by the same source
    first, ordered by case id. A few queries a CHUNK of cases."""
    pks = list(pks)
    wanted = set(pks)
    rows = []
    for start in range(0, len(pks), QUERY_CHUNK):
        chunk = pks[start : start + QUERY_CHUNK]
        rows += candidates().filter(pk__in=chunk).values("pk", "public_id", "org", "date")
    # Compared in order of organisation and date: each chunk's candidates are then a few
    # short spans of one or two organisations' cases (10,000 cases in random order: 15 s).
    rows.sort(key=lambda row: (row["org"], row["date"]))
    found = {}
    for start in range(0, len(rows), CHUNK):
        cases = rows[start : start + CHUNK]
        for pair, resemblance in by_source(cases) + by_title(cases):
            one, other = pair
            if other in wanted and resemblance.case_id < resemblance.other_id:
                continue  # said of the later case of the two
            found.setdefault(frozenset(pair), resemblance)
    return sorted(found.values(), key=lambda r: (r.case_id, r.source == "", r.other_id))


def by_source(cases):
    """((case pk, other pk), Resemblance) for cases citing a page another case cites."""
    own = defaultdict(set)  # key -> pks of these cases citing it
    for case_pk, key in (
        Source.objects.filter(case__in=[c["pk"] for c in cases])
        .exclude(url_key="")
        .values_list("case", "url_key")
    ):
        own[key].add(case_pk)
    ids = {c["pk"]: c["public_id"] for c in cases}
    pairs = []
    keys = list(own)
    for start in range(0, len(keys), CHUNK * 3):
        others = (
            Source.objects.filter(url_key__in=keys[start : start + CHUNK * 3])
            .filter(case__draft_of__isnull=True, case__merged_into__isnull=True)
            .order_by("case__public_id", "position")
            .values_list("url_key", "url", "case", "case__public_id")
        )
        for key, url, other_pk, other_id in others:
            for case_pk in own[key]:
                if case_pk != other_pk:
                    pairs.append(
                        ((case_pk, other_pk), Resemblance(ids[case_pk], other_id, other_pk, url))
                    )
    return pairs


def by_title(cases):
    """((case pk, other pk), Resemblance) for cases of one organisation, near in date and
    title. The candidates are read by organisation and the span of its dates among these
    cases (resemblances sorts them so that a chunk holds few organisations and short spans);
    those of the right days are picked out here."""
    if not cases:
        return []
    spans = Q()
    by_org = defaultdict(list)
    for case in cases:
        by_org[case["org"]].append(case["date"])
    for org, dates in by_org.items():
        spans |= Q(org=org, date__range=(min(dates) - DATE_WINDOW, max(dates) + DATE_WINDOW))
    others = list(
        candidates().filter(spans).values("pk", "public_id", "org", "date", "title_en", "title_ko")
    )
    titles = {}  # primary key -> word sets, made when first compared

    def titles_of(case):
        if case["pk"] not in titles:
            titles[case["pk"]] = title_sets(case)
        return titles[case["pk"]]

    on_day = defaultdict(list)  # (organisation, date) -> the candidates of that day
    for other in others:
        on_day[(other["org"], other["date"])].append(other)
    pairs = []
    for case in cases:
        mine = None
        for offset in range(-DATE_WINDOW.days, DATE_WINDOW.days + 1):
            day = case["date"] + datetime.timedelta(days=offset)
            for other in on_day.get((case["org"], day), ()):
                if other["pk"] == case["pk"]:
                    continue
                if mine is None:  # the case's own row is among the candidates, titles and all
                    mine = next(
                        (
                            titles_of(o)
                            for o in on_day[(case["org"], case["date"])]
                            if o["pk"] == case["pk"]
                        ),
                        [],
                    )
                if any(titles_near(a, b) for a in mine for b in titles_of(other)):
                    resemblance = Resemblance(
                        case["public_id"], other["public_id"], other["pk"], days_apart=abs(offset)
                    )
                    pairs.append(((case["pk"], other["pk"]), resemblance))
    return pairs


def title_sets(case):
    """A case's titles in each language, as word sets (an empty title left out)."""
    titles = (title_words(case["title_en"]), title_words(case["title_ko"]))
    return [words for words in titles if words]


def possible_duplicates(case):
    """What one case looks like (a pending revision asks for its case)."""
    return resemblances([case.root.pk])


def shares_a_source():
    """A condition on cases: some source of the case names a page another case cites. Served
    by the index on the sources' address keys: the changelist's "possible duplicates"."""
    others = Source.objects.filter(
        url_key=OuterRef("url_key"), case__draft_of__isnull=True, case__merged_into__isnull=True
    ).exclude(case=OuterRef("case"))
    own = Source.objects.filter(case=OuterRef("pk")).exclude(url_key="").filter(Exists(others))
    return Exists(own)
