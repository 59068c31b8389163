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
rendered again from them: one query of their columns and the block written out
(`mended`, called by cases.caching). Any other change renders the page whole, as before.
"""

from dataclasses import dataclass, replace

from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from cases.catalogue.checklist import case_address_parts, lang_attribute
from cases.models import Case
from cases.templatetags.library import translated_text

# What a link to another case shows: the rest of a case is long texts, read back from TOAST,
# and sixty columns for Django to compile and load.
LINKED_CASE_FIELDS = ("public_id", "status", "date", "title_en", "title_ko")
# Where the block begins and ends in the page as its template renders it (taken out, and
# the block's place kept, once it is rendered): one render, not two.
BEGIN, END = "<!--linked-cases-->", "<!--/linked-cases-->"


@dataclass(frozen=True)
class LinkedBlock:
    """A case page's block of links, as a cached page keeps it: the cases it links in
    each of its parts, in their order, where it lies in the page (bytes), and the version
    it was last mended at (a mended page is a new page: its ETag says so), and the language
    its links are in ("": not known, every language's change counts)."""

    own: frozenset  # the case the page is of, and the case it is a revision of
    recurrence_of: int | None
    recurrences: tuple
    related: tuple
    similar: tuple
    start: int
    end: int
    mended: int | None = None
    language: str = ""

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
        """Whether a case it links changed what its link shows in the page's language (a
        case changed as another's neighbour did not: its own title is as it was)."""
        return bool(changes.own_in(self.language) & self.linked)

    def mend(self, content, version, changes):
        return mended(content, self, version)


def block_html(*, recurrence_of, recurrences, related, similar):
    """The block as a case page shows it. Written here rather than in a template: after a
    correction a page that links the case is mended by rendering only this, and the
    template engine (a `{% url %}` and an include for each link) took a quarter of a mend."""
    before, after = case_address_parts()

    def link(other, with_id=True):
        title = translated_text(other, "title")
        return format_html(
            '<a href="{}{}{}">{}<span{}>{}</span></a>',
            before,
            other.public_id,
            after,
            f"{other.public_id}: " if with_id else "",
            lang_attribute(title.language if title.fallback else ""),
            title,
        )

    sections = []
    if related or recurrence_of or recurrences:
        items = []
        if recurrence_of:
            items.append(format_html("<li>{} {}</li>", _("Recurrence of"), link(recurrence_of)))
        items += [format_html("<li>{} {}</li>", _("Recurred as"), link(o)) for o in recurrences]
        items += [format_html("<li>{}</li>", link(other)) for other in related]
        sections.append(section_html(_("Related cases"), items))
    if similar:
        items = [
            format_html(
                '<li>{} <span class="muted">{}, {}</span></li>',
                link(other, with_id=False),
                org_name(other),
                f"{other.date.year:04d}" if other.date else "",
            )
            for other in similar
        ]
        sections.append(section_html(_("Similar cases"), items))
    return mark_safe("\n".join(sections))  # noqa: S308 (each part built by format_html)


def section_html(heading, items):
    return format_html(
        '<section class="section">\n    <h2>{}</h2>\n    <ul class="related">{}</ul>\n  </section>',
        heading,
        mark_safe("".join(items)),  # noqa: S308 (each built by format_html)
    )


def org_name(case):
    """A linked case's organisation's name: read with it (LinkedRow) or from its model."""
    return case.org_name if isinstance(case, LinkedRow) else case.org.name


@dataclass(frozen=True)
class LinkedRow:
    """What a mend reads of a linked case: the block's columns, without a model."""

    pk: int
    public_id: str
    date: object
    title_en: str
    title_ko: str
    org_name: str


def with_block(content, *, own, recurrence_of, recurrences, related, similar):
    """(the page `content` without the block's marks, a LinkedBlock of it)."""
    before, begun, rest = content.partition(BEGIN.encode())
    block, ended, after = rest.partition(END.encode())
    if not (begun and ended) or BEGIN.encode() in after:
        raise ValueError("a case page has one block of linked cases")
    return before + block + after, LinkedBlock(
        own=frozenset(own),
        language=get_language(),
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
    rows = (
        Case.objects.public()
        .filter(pk__in=pks)
        .values_list("pk", "public_id", "date", "title_en", "title_ko", "org__name")
    )
    cases = {row[0]: LinkedRow(*row) for row in rows}
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
