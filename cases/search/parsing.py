"""A reader's query as search reads it: clauses, each satisfied by any of its forms.

A clause is one word of the query, a name the name book knows (which may be several
words: "amazon web services"), or a quoted phrase. Its forms are what may stand for it in
a case: the word itself (matched by word beginnings and by its English stem), the other
names of the same thing, and a correction of a misspelling. A case matches a query when
it matches every clause (or, as the fallback, when it matches the most clauses).
"""

import re
from dataclasses import dataclass, replace

from .language import STOPWORDS, stem
from .text import words_of

MAX_QUERY_LENGTH = 200
# Clauses a query may have; words past them are ignored (each costs the database a test).
MAX_CLAUSES = 8
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")
QUOTED = re.compile(r'"([^"]*)"')


def clean_query(raw):
    """The query as searched: control characters gone, spaces folded, length bounded."""
    text = CONTROL_CHARACTERS.sub(" ", raw or "")
    return " ".join(text.split())[:MAX_QUERY_LENGTH]


@dataclass(frozen=True)
class Form:
    """Words that stand for a clause in a case: all of them (a phrase: in this order, next
    to each other). A name's words are matched as written, without their other forms:
    "Fastly" is not "fast"."""

    words: tuple
    phrase: bool = False
    name: bool = False

    @property
    def stems(self):
        return tuple(None if self.name else stem(word) for word in self.words)


@dataclass(frozen=True)
class Clause:
    text: str  # as the reader wrote it
    forms: tuple  # of Form, the reader's own first
    organisations: frozenset = frozenset()  # those the clause names
    terms: frozenset = frozenset()
    correction: str = ""  # the word the reader probably meant, if they misspelled it

    @property
    def own(self):
        return self.forms[0]

    def corrected(self, word):
        return replace(self, forms=(*self.forms, Form((word,))), correction=word)


@dataclass(frozen=True)
class SearchPlan:
    """What a search looks for and how: every clause (`partial` False) or the most."""

    clauses: tuple = ()
    partial: bool = False

    def __bool__(self):
        return bool(self.clauses)

    @property
    def organisations(self):
        return frozenset().union(*(c.organisations for c in self.clauses))

    @property
    def terms(self):
        return frozenset().union(*(c.terms for c in self.clauses))

    @property
    def corrected_text(self):
        """The query with each correction in place of the misspelled word."""
        return " ".join(c.correction or c.text for c in self.clauses)

    def with_corrections(self, corrections):
        """The plan with `corrections` (word -> correction) offered beside the words."""
        return replace(
            self,
            clauses=tuple(
                c.corrected(corrections[c.text])
                if len(c.own.words) == 1 and c.text in corrections
                else c
                for c in self.clauses
            ),
        )

    def as_partial(self):
        return replace(self, partial=True)

    def highlights(self):
        """(words, stems, phrases) to mark in what a result shows."""
        words, stems, phrases = [], [], []
        for clause in self.clauses:
            for form in clause.forms:
                if form.phrase:
                    phrases.append(list(form.words))
                else:
                    words += form.words
                    stems += [s for s in form.stems if s]
        return (list(dict.fromkeys(words)), list(dict.fromkeys(stems)), phrases)


def parse(query, names=None):
    """The plan of a cleaned query; `names` a NameBook (None: names stand for themselves)."""
    query = clean_query(query)
    clauses = []
    position = 0
    for match in QUOTED.finditer(query):
        clauses += word_clauses(query[position : match.start()], names)
        words = tuple(words_of(match.group(1)))
        if len(words) > 1:
            clauses.append(Clause(match.group(1), (Form(words, phrase=True),)))
        elif words:
            clauses.append(Clause(words[0], (Form(words),)))
        position = match.end()
    clauses += word_clauses(query[position:].replace('"', " "), names)
    unique = list({clause.own: clause for clause in clauses}.values())
    meaningful = [c for c in unique if c.own.phrase or c.own.words not in STOP_FORMS]
    return SearchPlan(tuple((meaningful or unique)[:MAX_CLAUSES]))


STOP_FORMS = {(word,) for word in STOPWORDS}


# Korean particles, longest first: a reader writes "업데이트로" where the name book has
# 업데이트, and a case may have 데이터베이스가 where the query has 데이터베이스를.
PARTICLES = (
    "에서는", "으로는", "에게서", "이라는",
    "에서", "으로", "에게", "까지", "부터", "보다", "처럼", "라는", "이나", "에는", "와의", "과의",
    "은", "는", "이", "가", "을", "를", "의", "에", "로", "와", "과", "도", "만", "나",
)  # fmt: skip


def without_particle(word):
    """The noun of a Korean word with a particle attached, or None."""
    if not word or not "\uac00" <= word[-1] <= "\ud7a3":
        return None
    for particle in PARTICLES:
        if word.endswith(particle) and len(word) - len(particle) >= 2:
            return word[: -len(particle)]
    return None


def word_clauses(text, names):
    words = words_of(text)
    clauses = []
    start = 0
    while start < len(words):
        named = names.named(words, start) if names else None
        noun = without_particle(words[start]) if not named else None
        if noun:
            named = names.named([noun], 0) if names else None
            if named is None:
                clauses.append(Clause(words[start], (Form((words[start],)), Form((noun,)))))
                start += 1
                continue
        if named:
            own = tuple(words[start : start + named.length])
            is_name = bool(named.organisations)
            forms = [Form(own, name=is_name)]
            forms += [Form(name, name=is_name) for name in named.names if name != own]
            clauses.append(
                Clause(
                    " ".join(own),
                    tuple(forms),
                    frozenset(named.organisations),
                    frozenset(named.terms),
                )
            )
            start += named.length
        else:
            clauses.append(Clause(words[start], (Form((words[start],)),)))
            start += 1
    return clauses
