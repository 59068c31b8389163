"""Search over cases in both languages.

Each case keeps a casefolded `search_text`: its texts in English and Korean plus the
labels and aliases of its terms. A query matches when every word of it occurs inside
that text. Matching inside words, not on word boundaries, is what Korean needs:
particles attach to nouns ("체크포인트를"), so whitespace splitting finds no words.
PostgreSQL serves the substring match from a trigram index; SQLite scans.
"""

import re

from django.db.models import Case as Conditional
from django.db.models import IntegerField, Value, When

from .exchange.validation import LANGUAGES
from .models import LIST_VOCABULARIES, Case, Vocabulary
from .translation_state import TRACKED_FIELDS

MAX_QUERY_LENGTH = 200
MAX_WORDS = 8
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")


def clean_query(raw):
    """The query as searched: control characters gone, spaces folded, length bounded."""
    text = CONTROL_CHARACTERS.sub(" ", raw or "")
    return " ".join(text.split())[:MAX_QUERY_LENGTH]


def query_words(query):
    words = []
    for word in query.casefold().split():
        if word not in words:
            words.append(word)
    return words[:MAX_WORDS]


def term_text(term):
    parts = [term.slug]
    for language in LANGUAGES:
        parts.append(getattr(term, f"label_{language}") or "")
        parts.extend(term.alias_list(language))
    return " ".join(parts)


def search_text_for(case, terms):
    """The search text of a case in the normal exchange form (see exchange.validation).

    `terms` maps (vocabulary, slug) to Term, for labels and aliases.
    """
    parts = [case["id"], case["org"], case["org_slug"]]
    for field in TRACKED_FIELDS:
        text = (
            case["impact"][field[len("impact_") :]] if field.startswith("impact_") else case[field]
        )
        parts.extend(text[language] for language in LANGUAGES)
    for step in case["remediation"] + case["action_items"]:
        parts.extend(step[language] for language in LANGUAGES)
    keys = [
        (vocabulary, slug)
        for field, vocabulary in LIST_VOCABULARIES.items()
        for slug in case[field]
    ]
    if case["root_cause"]:
        keys.append((Vocabulary.ROOT_CAUSE, case["root_cause"]))
    parts.extend(term_text(terms[key]) for key in keys if key in terms)
    # Each word once: a query word has no spaces, so it occurs in the text exactly when it
    # occurs inside one of its words. Repeats only make the text and its index larger.
    words = dict.fromkeys(" ".join(part for part in parts if part).casefold().split())
    return " ".join(words)


def refresh_search_text(cases):
    """Recompute and store the search text of the given cases (a queryset)."""
    from .exchange.serialize import case_to_exchange
    from .exchange.validation import validate_case

    changed = []
    for case in cases.for_exchange().iterator(chunk_size=500):
        terms = {(ct.term.vocabulary, ct.term.slug): ct.term for ct in case.case_terms.all()}
        if case.root_cause_id:
            terms[(Vocabulary.ROOT_CAUSE, case.root_cause.slug)] = case.root_cause
        normal, _problems = validate_case(case_to_exchange(case))
        text = search_text_for(normal, terms) if normal else ""
        if text != case.search_text:
            case.search_text = text
            changed.append(case)
    Case.objects.bulk_update(changed, ["search_text"], batch_size=500)
    return len(changed)


def search(queryset, query):
    """Cases matching every word of the query, with a `relevance` annotation."""
    words = query_words(query)
    if not words:
        return queryset
    for word in words:
        queryset = queryset.filter(search_text__contains=word)
    # Relevance: words found in a title count most, then words in the summary.
    score = Value(0)
    for word in words:
        for field, weight in (("title", 4), ("summary", 1)):
            for language in LANGUAGES:
                score = score + Conditional(
                    When(**{f"{field}_{language}__icontains": word}, then=Value(weight)),
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
    if len(name) < 2:
        return False
    if name.isascii():
        return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None
    return name in text
