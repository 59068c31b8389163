"""The words a case is searched by: its own texts, and the labels and aliases of its terms."""

import re

from cases.exchange.serialize import case_to_exchange, tracked_text
from cases.exchange.validation import validate_case
from cases.models import LIST_VOCABULARIES, Case, Vocabulary
from cases.rules import LANGUAGES, TRACKED_FIELDS

from .language import stem_tokens

# Letters and digits; punctuation and underscores separate words, as in PostgreSQL's parser.
# (`\w+` over text whose underscores are spaces: the same words, 1.7 times as fast as `[^\W_]+`.)
WORD = re.compile(r"\w+")
# PostgreSQL refuses a lexeme over 2,047 bytes; a "word" this long is no word anyway.
MAX_WORD_LENGTH = 500


def words_of(text):
    """The words of a text as search sees them: casefolded runs of letters and digits."""
    return WORD.findall(text.casefold().replace("_", " "))


def term_text(term):
    parts = [term.slug]
    for language in LANGUAGES:
        parts.append(getattr(term, f"label_{language}") or "")
        parts.extend(term.alias_list(language))
    return " ".join(parts)


def case_words(case):
    """The words of a case's own texts (normal form), each once, in order of first use:
    most of its search text, and needing no database (see exchange.words)."""
    parts = [case["id"], case["org"], case["org_slug"]]
    for field in TRACKED_FIELDS:
        text = tracked_text(case, field)
        parts.extend(text[language] for language in LANGUAGES)
    for step in case["remediation"] + case["action_items"]:
        parts.extend(step[language] for language in LANGUAGES)
    return list(dict.fromkeys(words_of(" ".join(part for part in parts if part))))


def search_text_for(case, terms, words=None):
    """The search text of a case in the normal exchange form (see exchange.validation).

    `terms` maps (vocabulary, slug) to Term, for labels and aliases; `words` are the
    case's own (`case_words`), if already found.
    """
    keys = [
        (vocabulary, slug)
        for field, vocabulary in LIST_VOCABULARIES.items()
        for slug in case[field]
    ]
    if case["root_cause"]:
        keys.append((Vocabulary.ROOT_CAUSE, case["root_cause"]))
    term_texts = " ".join(term_text(terms[key]) for key in keys if key in terms)
    # Each word once: repeats only make the text and its index larger.
    unique = dict.fromkeys(case_words(case) if words is None else words)
    unique.update(dict.fromkeys(words_of(term_texts)))
    words = [word for word in unique if len(word) <= MAX_WORD_LENGTH]
    return " ".join(words + stem_tokens(words))


def remember_words(words):
    from .typos import remember_words as remember  # it reads the models

    remember(words)


def refresh_search_text(cases):
    """Recompute and store the search text of the given cases (a queryset)."""
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
    remember_words(word for case in changed for word in case.search_text.split())
    return len(changed)
