"""`check.md`: the list's "Check your own system" (cases.catalogue.checklist) as Markdown,
for the same filters and search as the list, to keep or paste into a team's notes."""

import functools
import re

from django.http import HttpResponse
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_safe

from cases.caching import cache_public_page, page_shows
from cases.catalogue.checklist import build_check
from cases.catalogue.filters import DATES
from cases.catalogue.paging import facet_filters

from .views import list_query

MARKDOWN = "text/markdown; charset=utf-8"


def named_inline(view):
    """The export's name, set outside the page cache (which keeps only a page's content
    and type): a cached copy is named like a fresh one."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if response.status_code == 200:
            name = f"check-your-own-system-{translation.get_language()}.md"
            response["Content-Disposition"] = f'inline; filename="{name}"'
        return response

    return wrapper


@require_safe
@named_inline
@cache_public_page
def check_markdown(request):
    query, left_out, moved = list_query(request)
    if moved:
        return moved
    listed = query.listed()
    check = build_check(query.index, listed, query.terms, query.data)
    declare_shown(query, check)
    text = check_as_markdown(request, check, [*left_out, *query.notices], any_listed=bool(listed))
    return HttpResponse(text, content_type=MARKDOWN)


def declare_shown(query, check):
    """What the export shows, for the page cache: the listed cases, counted (each factor's
    count is theirs), and the linked ones' titles and follow-ups. A search's is rendered
    afresh after any change (its matches are not in the facet index)."""
    if query.searches:
        return
    filters = None
    if query.valid and not any(query.data.get(name) for name in DATES):
        filters = facet_filters(query.filterset, query.index)
    page_shows(
        listing=True, filters=filters, counted=False, cases=check.case_keys() if check else []
    )


# What would make a title or a follow-up Markdown where it is rendered: links, emphasis,
# code, tables; and HTML (as entities). A line's start is never theirs (always after "- "
# or "## "), but a list marker there would still open a list inside the item.
SPECIAL = re.compile(r"([\\`*_\[\]|~])")
LIST_MARKER = re.compile(r"^(\d+)([.)])|^([-+#])")


def escaped(text):
    """Text as Markdown that shows it as written, on one line."""
    text = " ".join(str(text).split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = SPECIAL.sub(r"\\\1", text)
    return LIST_MARKER.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", text)


def check_as_markdown(request, check, notices, *, any_listed=True):
    def absolute(path, query=""):
        return request.build_absolute_uri(path) + (f"?{query}" if query else "")

    list_path = reverse("cases:list")
    lines = [f"# {_('Check your own system')}", ""]
    lines += [f"> {escaped(notice)}" for notice in notices]
    if notices:
        lines.append("")
    if check is None:
        if any_listed:
            lines += [_("None of these cases names a contributing factor."), ""]
        else:
            lines += [_("No published case matches these filters."), ""]
        lines += [f"<{absolute(list_path, request.GET.urlencode())}>", ""]
        return "\n".join(lines)
    lines += [
        ngettext(
            "Questions to ask of your own system, from the contributing factors of %(count)s case:",
            "Questions to ask of your own system, from the contributing factors of these "
            "%(count)s cases, those of the most cases first:",
            check.total,
        )
        % {"count": check.total},
        f"<{absolute(list_path, check.filters_query)}>",
        "",
    ]
    for question in check.questions:
        factor = escaped(question.label)
        lines += [f"## {escaped(question.text)}", ""]
        lines.append(
            ngettext(
                "Contributing factor: %(factor)s, in %(count)s case.",
                "Contributing factor: %(factor)s, in %(count)s cases.",
                question.count,
            )
            % {"factor": factor, "count": question.count}
        )
        lines += ["", _("Raised by:"), ""]
        for case in question.cases:
            title = escaped(f"{case.public_id}: {case.title}")
            lines.append(f"- [{title}]({absolute(case.url)}) ({escaped(case.org_name)})")
        if question.more:
            more = ngettext(
                "and %(count)s more case", "and %(count)s more cases", question.more
            ) % {"count": question.more}
            lines.append(f"- [{more}]({absolute(list_path, question.cases_query)})")
        if question.follow_ups:
            lines += ["", _("What they followed up with:"), ""]
            for follow_up in question.follow_ups:
                case = follow_up.case
                lines.append(
                    f"- {escaped(follow_up.text)} ([{case.public_id}]({absolute(case.url)}))"
                )
        lines.append("")
    return "\n".join(lines)
