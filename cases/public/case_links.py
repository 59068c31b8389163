"""The block of a case page that links other cases (its related cases, recurrences and
similar cases), rendered apart so that a cached page can be mended rather than rendered
whole.

A correction of one case's title changes every page that links it: the pages of the cases
related to it, and of those that list it among their similar cases, some ten pages for
each correction, each a full render (its case's texts, terms, sources and three queries
for its links) for one changed line. When a change touched no case whose own content the
page shows, moved none of its links (PublicChange.neighbour), and touched the linked
cases only in what lists do not count (a title, not a date, organisation or terms:
Changes.listed), the same cases are linked in the same order, and only the block need be
rendered again from them: one query and a small template (`mended`, called by
cases.caching). Any other change renders the page whole, as before.
"""

from dataclasses import dataclass, replace

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from cases.models import Case

# What a link to another case shows: the rest of a case is long texts, read back from TOAST,
# and sixty columns for Django to compile and load.
LINKED_CASE_FIELDS = ("public_id", "status", "date", "title_en", "title_ko")
TEMPLATE = "cases/case_links.html"
# Where the block begins and ends in the page as its template renders it (taken out, and
# the block's place kept, once it is rendered): one render, not two.
BEGIN, END = "<!--linked-cases-->", "<!--/linked-cases-->"


@dataclass(frozen=True)
class LinkedBlock:
    """A case page's block of links, as a cached page keeps it: the cases it links in
    each of its parts, in their order, where it lies in the page (bytes), and the version
    it was last mended at (a mended page is a new page: its ETag says so)."""

    own: frozenset  # the case the page is of, and the case it is a revision of
    recurrence_of: int | None
    recurrences: tuple
    related: tuple
    similar: tuple
    start: int
    end: int
    mended: int | None = None

    @property
    def linked(self):
        return frozenset(
            {*self.recurrences, *self.related, *self.similar}
            | ({self.recurrence_of} if self.recurrence_of else set())
        )

    # What cases.caching asks of a page's mendable part.
    def set_aside(self, changes):
        """The cases whose changes mending the block answers for, or None: render the
        page whole."""
        return self.linked | self.own if mendable(self, changes) else None

    def changed_by(self, changes):
        return True  # (set aside only when a case it links changed: mendable)

    def mend(self, content, version, changes):
        return mended(content, self, version)


def block_html(*, recurrence_of, recurrences, related, similar):
    return render_to_string(
        TEMPLATE,
        {
            "recurrence_of": recurrence_of,
            "recurrences": recurrences,
            "related": related,
            "similar": similar,
        },
    )


def with_block(content, *, own, recurrence_of, recurrences, related, similar):
    """(the page `content` without the block's marks, a LinkedBlock of it)."""
    before, begun, rest = content.partition(BEGIN.encode())
    block, ended, after = rest.partition(END.encode())
    if not (begun and ended) or BEGIN.encode() in after:
        raise ValueError("a case page has one block of linked cases")
    return before + block + after, LinkedBlock(
        own=frozenset(own),
        recurrence_of=recurrence_of.pk if recurrence_of else None,
        recurrences=tuple(case.pk for case in recurrences),
        related=tuple(case.pk for case in related),
        similar=tuple(case.pk for case in similar),
        start=len(before),
        end=len(before) + len(block),
    )


def marks():
    """The context that marks the block in a case page's template."""
    return {"linked_cases_begin": mark_safe(BEGIN), "linked_cases_end": mark_safe(END)}


def mendable(linked, changes):
    """Whether `changes` touched the page of a LinkedBlock only in its links' texts: then
    the page's other parts, and which cases the block links, are as they were."""
    return (
        changes is not None
        and not changes.own & linked.own
        and not changes.listed & (linked.linked | linked.own)
        and bool(changes.cases & linked.linked)
    )


def mended(content, linked, version):
    """(content, LinkedBlock) with the block rendered again from the cases it links, read
    afresh, at `version`; None if one of them is no longer public (render the page)."""
    pks = linked.linked
    cases = {
        case.pk: case
        for case in Case.objects.public()
        .filter(pk__in=pks)
        .select_related("org")
        .only(*LINKED_CASE_FIELDS, "org__name")
    }
    if cases.keys() != pks:
        return None
    html = block_html(
        recurrence_of=cases.get(linked.recurrence_of),
        recurrences=[cases[pk] for pk in linked.recurrences],
        related=[cases[pk] for pk in linked.related],
        similar=[cases[pk] for pk in linked.similar],
    ).encode()
    content = content[: linked.start] + html + content[linked.end :]
    return content, replace(linked, end=linked.start + len(html), mended=version)
