"""A reader's query: cleaned, split into words, matched against cases, ranked; and the
terms and organisations it names, offered as filters."""

import re

from django.db import connections
from django.db.models import Case as Conditional
from django.db.models import IntegerField, TextField, Value, When
from django.db.models.functions import Concat, Lower
from django.db.models.lookups import Contains

from cases.rules import LANGUAGES

from .planner import SearchVectorMatches, TitleWords
from .text import words_of

MAX_QUERY_LENGTH = 200
MAX_WORDS = 8
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")


def title_words(connection):
    """Both titles in lower case: stored on PostgreSQL, where every match of a broad
    search is ranked by them (lowering them there cost more than the rest of the
    ranking); lowered as it goes elsewhere."""
    if connection.vendor == "postgresql":
        return TitleWords()
    return Lower(Concat("title_en", Value(" "), "title_ko", output_field=TextField()))


def clean_query(raw):
    """The query as searched: control characters gone, spaces folded, length bounded."""
    text = CONTROL_CHARACTERS.sub(" ", raw or "")
    return " ".join(text.split())[:MAX_QUERY_LENGTH]


def query_words(query):
    return list(dict.fromkeys(words_of(query)))[:MAX_WORDS]


def search(queryset, query):
    """Cases matching every word of the query, with a `relevance` annotation, written for
    the database the queryset reads."""
    words = query_words(query)
    if not words:  # only punctuation or symbols: nothing to look for, nothing to rank
        return queryset.annotate(relevance=Value(0))
    connection = connections[queryset.db]
    if connection.vendor == "postgresql":
        # Words are letters and digits only, so they need no escaping as tsquery operands.
        tsquery = " & ".join(f"'{word}':*" for word in words)
        queryset = queryset.filter(SearchVectorMatches(tsquery))
    else:
        queryset = queryset.alias(
            padded_search_text=Concat(Value(" "), "search_text", output_field=TextField())
        )
        for word in words:
            queryset = queryset.filter(padded_search_text__contains=f" {word}")
    # Relevance: how many of the words the titles hold (either language). Titles only:
    # they are short and stored in the row, where summaries are compressed apart from it,
    # and a search matching most of 100,000 cases ranks every one of them.
    titles = title_words(connection)
    score = Value(0)
    for word in words:
        score = score + Conditional(
            When(Contains(titles, word), then=Value(1)),
            default=Value(0),
            output_field=IntegerField(),
        )
    return queryset.annotate(relevance=score)


def suggested_filters(query, terms, organisations):
    """Terms and organisations whose label or alias appears in the query.

    Latin-script labels must appear as whole words (so "DNS" does not match inside
    "DNSSEC"); Korean labels may appear inside a word, because particles attach to them.
    """
    text = query.casefold()
    if not text:
        return []
    found = []
    for term in terms:
        names = [getattr(term, f"label_{lang}") or "" for lang in LANGUAGES]
        names += term.alias_list("en") + term.alias_list("ko")
        if any(mentions(text, name) for name in names):
            found.append(term)
    found += [org for org in organisations if mentions(text, org.name)]
    return found


def mentions(text, name):
    name = name.casefold().strip()
    # Most names are not in the query at all: settle those without a regular expression,
    # for a list's search asks this of every term and organisation, hundreds of names,
    # more than `re` keeps compiled.
    if len(name) < 2 or name not in text:
        return False
    if name.isascii():
        return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None
    return name in text
