"""Which languages a case is written in: the one rule its page and the sitemap announce.

A case is *written in* a language when its title exists in that language, and its summary
does too (a case with no summary in any language needs none). A title and a summary are
what a reader and a search engine judge a page by: a Korean page whose title and summary
are English is an English page in Korean chrome. A later section still missing in a written
language shows the other language's text, marked with its `lang` and a note.

Should no language qualify (a title in one language, the summary only in the other), the
case is written in the languages its title is in: the title is the one text the exchange
format requires, so every valid case is written in at least one language.

`written_languages(case)` reads a loaded case's texts; `written_in(language)` is the same
rule as a query condition, so that a list of many cases (the sitemap) asks it of the
database without loading their texts. A property test holds the two to each other.
"""

from django.db.models import BooleanField, ExpressionWrapper, Q
from django.utils.translation import gettext_lazy as _

from cases.rules import DEFAULT_LANGUAGE, LANGUAGES

# What a case page in a language the case is not written in says, by (the page's language,
# the language the case is shown in).
NOT_WRITTEN_NOTICES = {
    ("ko", "en"): _("This case is not yet written in Korean; it is shown in English."),
    ("en", "ko"): _("This case is not yet written in English; it is shown in Korean."),
}


def _has(case, field, language):
    return bool(getattr(case, f"{field}_{language}", None))


def _qualifies(case, language):
    has_summary = any(_has(case, "summary", other) for other in LANGUAGES)
    return _has(case, "title", language) and (_has(case, "summary", language) or not has_summary)


def written_languages(case):
    """The languages `case` is written in, in the order of settings.LANGUAGES."""
    qualifying = [language for language in LANGUAGES if _qualifies(case, language)]
    return qualifying or [language for language in LANGUAGES if _has(case, "title", language)]


def canonical_language(case, language):
    """The language of the page that stands for `case`'s page in `language`: that language
    if the case is written in it, else the first it is written in (the default first)."""
    written = written_languages(case)
    if language in written or not written:
        return language
    return DEFAULT_LANGUAGE if DEFAULT_LANGUAGE in written else written[0]


def _has_q(field, language):
    # `> ""` is false for an empty text and for NULL alike.
    return Q(**{f"{field}_{language}__gt": ""})


def _qualifies_q(language):
    no_summary = ~Q(*(_has_q("summary", other) for other in LANGUAGES), _connector=Q.OR)
    return _has_q("title", language) & (_has_q("summary", language) | no_summary)


def written_in(language):
    """`written_languages` as a condition: the cases written in `language`."""
    none_qualifies = ~Q(*(_qualifies_q(other) for other in LANGUAGES), _connector=Q.OR)
    return _qualifies_q(language) | (_has_q("title", language) & none_qualifies)


def with_written_languages(queryset):
    """The cases annotated `written_en`, `written_ko`, ...: see `annotated_languages`."""
    return queryset.annotate(
        **{
            f"written_{language}": ExpressionWrapper(written_in(language), BooleanField())
            for language in LANGUAGES
        }
    )


def annotated_languages(case):
    """The languages a case from `with_written_languages` is written in."""
    return [language for language in LANGUAGES if getattr(case, f"written_{language}")]
