"""The parts of the list page that a change renews on every list (its facets' counts and
its charts), built with plain strings rather than template loops or format_html: a
renewed list builds a few hundred of them, which cost a third of its render in a template.
The HTML is the same as the templates made (tests/public/test_list_parts.py)."""

from html import escape

from django import template
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cases.templatetags.library import current_query, term_label, toggled, with_query

register = template.Library()


def as_html(value):
    """conditional_escape, without its lazy-text machinery: what format_html costs most."""
    return value.__html__() if hasattr(value, "__html__") else escape(str(value))


@register.simple_tag(takes_context=True)
def facet_values(context, facet):
    """A facet's values in the list's sidebar: a link each that adds or removes it, with its
    count, and the link to the rest."""
    request = context["request"]
    query = current_query(request)
    items = []
    for value in facet.shown:
        selected = value.selected
        href = with_query(request, toggled(query, facet.name, value.slug))
        items.append(
            f'\n          <li><a href="{escape(href)}" '
            f'class="facet-value{" selected" if selected else ""}"'
            f"{' aria-current="true"' if selected else ''}>\n"
            f'            <span class="facet-check" aria-hidden="true">{"✓" if selected else ""}'
            "</span>\n"
            f'            <span class="facet-label">{as_html(term_label(value))}</span> '
            f'<span class="facet-count">{value.count}</span></a></li>\n          '
        )
    if not items:
        items.append(f'<li class="muted">{escape(_("None in these cases"))}</li>\n          ')
    html = f"<ul>\n          {''.join(items)}\n        </ul>\n        "
    hidden = facet.hidden_count
    if hidden:
        expand = toggled(query, "expand", facet.name)
        more = ngettext("Show %(counter)s more", "Show %(counter)s more", hidden)
        html += (
            f'<a class="facet-more" href="{escape(with_query(request, expand))}">'
            f"{escape(more % {'counter': hidden})}</a>"
        )
    return mark_safe(html)  # every value above is escaped


# SVG coordinates are written as Python writes numbers, never localized: a decimal comma
# would break the drawing.
def year_chart_html(years):
    title = escape(_("Cases per year"))
    height = years["height"]
    bars, table = [], []
    for c in years["columns"]:
        label, count = escape(c["label"]), c["count"]
        bars.append(
            f'<rect class="bar" x="{c["x"]}" y="{c["y"]}" width="18" height="{c["height"]}">'
            f"<title>{label}: {count}</title></rect>\n"
            f'      <text class="bar-label" x="{c["text_x"]}" y="{int(c["y"]) - 3}" '
            f'text-anchor="middle">{count}</text>\n'
            f'      <text class="axis-label" x="{c["text_x"]}" y="{height - 2}" '
            f'text-anchor="middle">{escape(c["short_label"])}</text>'
        )
        table.append(f'<tr><th scope="row">{label}</th><td>{count}</td></tr>')
    return (
        '<figure class="chart chart-years">\n'
        f"    <figcaption>{title}</figcaption>\n"
        f'    <svg viewBox="0 0 {years["width"]} {height}" width="{years["display_width"]}" '
        'aria-hidden="true" focusable="false">\n'
        f"      {''.join(bars)}\n"
        "    </svg>\n"
        f'    <table class="visually-hidden"><caption>{title}</caption>\n'
        f"      {''.join(table)}</table>\n"
        "  </figure>"
    )


def cause_chart_html(causes):
    title = escape(_("Cases per cause"))
    bars, table = [], []
    for r in causes["rows"]:
        lang = f' lang="{escape(r["lang"])}"' if r["lang"] else ""
        label, count = r["label"], r["count"]
        bars.append(
            f'<text class="axis-label" x="0" y="{r["text_y"]}"{lang}>'
            f"{escape(Truncator(label).chars(24))}</text>\n"
            f'      <rect class="bar" x="130" y="{int(r["y"]) + 2}" width="{r["width"]}" '
            f'height="12"><title>{escape(label)}: {count}</title></rect>\n'
            f'      <text class="bar-label" x="{r["count_x"]}" y="{r["text_y"]}">{count}</text>'
        )
        table.append(
            f'<tr><th scope="row">{as_html(term_label(r["value"]))}</th><td>{count}</td></tr>'
        )
    return (
        '<figure class="chart chart-causes">\n'
        f"    <figcaption>{title}</figcaption>\n"
        f'    <svg viewBox="0 0 {causes["width"]} {causes["height"]}" '
        f'width="{causes["display_width"]}" aria-hidden="true" focusable="false">\n'
        f"      {''.join(bars)}\n"
        "    </svg>\n"
        f'    <table class="visually-hidden"><caption>{title}</caption>\n'
        f"      {''.join(table)}</table>\n"
        "  </figure>"
    )


@register.simple_tag
def list_charts(charts):
    """Cases per year and per cause above the list (cases.catalogue.listing.charts)."""
    years, causes = charts.get("years"), charts.get("causes")
    if not (years or causes):
        return ""
    return mark_safe(  # built of escaped values
        '\n<div class="charts">\n  '
        f"{year_chart_html(years) if years else ''}\n  "
        f"{cause_chart_html(causes) if causes else ''}\n"
        "</div>\n"
    )
