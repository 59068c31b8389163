"""Links that keep the reader's filters, and translated text with its fallback, in
Markdown."""

import functools
from dataclasses import dataclass

from django import template
from django.conf import settings
from django.urls import reverse, translate_url
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.translation import get_language, gettext_lazy, override
from django.utils.translation import gettext as _

from cases import markdown as case_markdown
from cases.catalogue.filters import FACETS, NARROWING
from cases.catalogue.shown_texts import fallback_order
from cases.catalogue.vocabularies import facet_of
from cases.models import Organisation, Term

register = template.Library()


def current_query(request):
    """The page's query as {name: [values]}, without its page number. (A plain dict: a
    list page builds about a hundred links from it, and QueryDict.copy() deep-copies.)"""
    return {name: list(values) for name, values in request.GET.lists() if name != "page"}


def this_page(request):
    """The page's path and query as the page was built from it (a list bounds its query:
    cases.catalogue.bounds), not as the request sent it."""
    query = request.GET.urlencode()
    return f"{request.path}?{query}" if query else request.path


def with_query(request, query):
    encoded = urlencode(query, doseq=True)
    return f"{request.path}?{encoded}" if encoded else request.path


def toggled(query, name, value):
    """A copy of `query` ({name: [values]}) with `value` added to `name`'s values, or
    removed if it was there."""
    values = query.get(name, [])
    return {
        **query,
        name: [v for v in values if v != value] if value in values else [*values, value],
    }


@register.simple_tag(takes_context=True)
def toggle_url(context, name, value):
    """The current page with one facet value added, or removed if it was there."""
    request = context["request"]
    return with_query(request, toggled(current_query(request), name, value))


@register.simple_tag(takes_context=True)
def remove_url(context, name, value=None):
    request = context["request"]
    query = current_query(request)
    if value is None:
        query.pop(name, None)
    else:
        query[name] = [v for v in query.get(name, []) if v != value]
    return with_query(request, query)


@register.simple_tag(takes_context=True)
def clear_url(context):
    request = context["request"]
    query = current_query(request)
    for name in (*FACETS, *NARROWING):
        query.pop(name, None)
    return with_query(request, query)


@register.simple_tag(takes_context=True)
def language_url(context, language):
    """This page, with its filters, in another language."""
    request = context["request"]
    return translate_url(this_page(request), language)


@register.simple_tag(takes_context=True)
def alternate_links(context):
    """(hreflang, url) of this page in each language it is written in: a case page names
    its case's (`alternate_languages`, public.languages), any other page every language.
    `x-default`, the address that picks by the browser's language, only where the default
    language is among them: as the sitemap says."""
    request = context["request"]
    url = request.build_absolute_uri(this_page(request))
    languages = context.get("alternate_languages") or [code for code, _name in settings.LANGUAGES]
    links = [(code, translate_url(url, code)) for code in languages]
    default = settings.LANGUAGE_CODE
    if default in languages:
        default_url = translate_url(url, default)
        links.append(("x-default", default_url.replace(f"/{default}/", "/", 1)))
    return links


@register.simple_tag
def filter_url(item):
    """The list filtered on a term or an organisation."""
    name = "org" if isinstance(item, Organisation) else facet_of(item.vocabulary)
    return f"{list_url(get_language())}?{urlencode({name: item.slug})}"


@functools.cache
def list_url(language):
    """The list's address in a language: a card links to it a few dozen times."""
    with override(language):
        return reverse("cases:list")


# Under a text shown in another language than the page's.
FALLBACK_NOTES = {
    "en": gettext_lazy("Not yet translated; shown in English."),
    "ko": gettext_lazy("Not yet translated; shown in Korean."),
}


@dataclass
class Translated:
    text: str
    language: str
    fallback: bool  # the reader's language had no text; this is another language's

    def __str__(self):
        return self.text

    def __bool__(self):
        return bool(self.text)

    @property
    def fallback_note(self):
        return FALLBACK_NOTES[self.language] if self.fallback else ""


def translated_text(obj, field):
    """The text in the page's language, else in the default language, else in any."""
    language = get_language()
    for candidate in fallback_order(language):
        text = getattr(obj, f"{field}_{candidate}", None) or ""
        if text:
            return Translated(text, candidate, candidate != language)
    return Translated("", language, False)


# After a term's label shown in another language than the page's: "(영어)".
LANGUAGE_MARKS = {"en": gettext_lazy("(English)"), "ko": gettext_lazy("(Korean)")}


def term_label_parts(term):
    """(label, language it is in if not the page's, else "") of a term, as pages show it."""
    label = translated_text(term, "label")
    return label.text, label.language if label.fallback else ""


@register.simple_tag
def term_label(item):
    """`{% term_label term %}` (or a facet value): a term's label in the page's language.
    A Korean page shows a term nobody has labelled in Korean by its English label, marked
    as English for the eye ("(영어)") and for a screen reader or a translator (lang="en").
    Anything else (an organisation, a severity) by its own label."""
    term = getattr(item, "obj", item)
    if not isinstance(term, Term):
        return getattr(item, "label", None) or getattr(item, "name", "")
    text, language = term_label_parts(term)
    if not language:
        return text
    return format_html(
        '<span lang="{}">{}</span> <span class="lang-mark">{}</span>',
        language,
        text,
        LANGUAGE_MARKS.get(language, f"({language})"),
    )


@register.filter
def tr(obj, field):
    """`{{ case|tr:"summary" }}`: the text in the page's language, else English, marked."""
    return translated_text(obj, field)


@register.filter
def aliases(obj, language):
    """`{{ org|aliases:"ko" }}`: an organisation's or a term's aliases in one language."""
    return obj.alias_list(language)


@register.filter
def markdown(text):
    """`{{ case|tr:"summary"|markdown }}`: a case text (a str or a Translated) as HTML. The
    template marks a fallback's language around it."""
    return case_markdown.render(text)


@register.filter
def plaintext(text):
    """A case text as one line of plain text, for a description: no Markdown, no HTML."""
    return " ".join(case_markdown.plain(text).split())


@register.filter
def duration(value):
    """A timedelta for reading: "3 h 15 min", "2 d 4 h" (or in Korean, 3시간 15분)."""
    minutes = int(value.total_seconds() // 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    units = [(days, _("%d d")), (hours, _("%d h")), (minutes, _("%d min"))]
    parts = [label % amount for amount, label in units if amount]
    return " ".join(parts) or _("under a minute")


@register.simple_tag
def content_licence():
    """The licence of the library's own text, for the footer: {name, url}."""
    from cases.public.provenance import CONTENT_LICENCE_NAME, CONTENT_LICENCE_URL

    return {"name": CONTENT_LICENCE_NAME, "url": CONTENT_LICENCE_URL}
