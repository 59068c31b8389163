"""Misspelled search words, and the library's words they probably meant.

A word of the query that begins no word of the library (cases.models.SearchWord) may be
misspelled: its candidates are the library's words most alike by trigrams, as PostgreSQL's
pg_trgm measures them (`similarity`: shared trigrams over all trigrams of the two, each
word padded with two spaces before and one after). PostgreSQL finds them by the trigram
index of the words; SQLite, the embedded default of small libraries, compares them here
by the same measure (`similarity`), over the words of a like length. A candidate is
offered only if a public case has it.
"""

from django.db import connections
from django.db.models import BooleanField, Exists, F, Func, OuterRef, TextField, Value
from django.db.models.functions import Concat, Length

from cases.models import Case, SearchEntry, SearchWord

from .language import STEM_MARK

# Shorter words are too easily "corrected" into others (pg_trgm's own threshold is 0.3).
SHORTEST_WORD = 4
LEAST_SIMILARITY = 0.45
CANDIDATES = 5
LONGEST_WORD = SearchWord._meta.get_field("word").max_length


def trigrams(word):
    padded = f"  {word} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def similarity(left, right):
    """pg_trgm's similarity of two words (casefolded, letters and digits only)."""
    a, b = trigrams(left), trigrams(right)
    return len(a & b) / len(a | b) if a and b else 0.0


def rememberable(word):
    return 3 <= len(word) <= LONGEST_WORD and not word.startswith(STEM_MARK) and not word.isdigit()


def remember_words(words, using=None):
    """Add words of cases being written to the library's words."""
    new = sorted({word for word in words if rememberable(word)})
    if new:
        SearchWord.objects.using(using).bulk_create(
            [SearchWord(word=word) for word in new], ignore_conflicts=True, batch_size=2000
        )


def rebuild_words(using=None):
    """The library's words, from every case's search text again (drops words no case has)."""
    words = set()
    for text in Case.objects.using(using).values_list("search_text", flat=True).iterator():
        words.update(text.split())
    SearchWord.objects.using(using).all().delete()
    remember_words(words, using)


class HasWord(Func):
    """Whether a search entry's text has a word (an expression) as a whole word."""

    output_field = BooleanField()
    conditional = True

    def __init__(self, word):
        padded = Concat(Value(" "), F("search_text"), Value(" "), output_field=TextField())
        super().__init__(word, padded)

    def as_postgresql(self, compiler, connection):
        table = compiler.quote_name(compiler.query.base_table)
        word, params = compiler.compile(self.source_expressions[0])
        return f"{table}.search_vector @@ CAST(quote_literal({word}) AS tsquery)", params

    def as_sql(self, compiler, connection):
        word, params = compiler.compile(self.source_expressions[0])
        text, text_params = compiler.compile(self.source_expressions[1])
        return f"({text}) LIKE ('%% ' || {word} || ' %%')", [*text_params, *params]


def unknown(words, using):
    """The words (of `words`) that begin no word of the library."""
    if not words:
        return []
    # A query each (a search has a few words): each finds its first word by the index.
    library = SearchWord.objects.using(using)
    return [w for w in words if not library.filter(word__startswith=w).exists()]


def candidates(words, using):
    """{word: [library words most alike, best first]}."""
    connection = connections[using]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT q.w, c.word FROM unnest(%s::text[]) AS q(w) CROSS JOIN LATERAL ("
                " SELECT s.word, similarity(s.word, q.w) AS sim FROM cases_searchword s"
                " WHERE s.word %% q.w AND similarity(s.word, q.w) >= %s"
                " ORDER BY sim DESC, abs(length(s.word) - length(q.w)), s.word LIMIT %s) c",
                [list(words), LEAST_SIMILARITY, CANDIDATES],
            )
            found = {}
            for word, candidate in cursor.fetchall():
                found.setdefault(word, []).append(candidate)
            return found
    found = {}
    for word in words:
        near = (
            SearchWord.objects.using(using)
            .alias(length=Length("word"))
            .filter(length__range=(len(word) - 3, len(word) + 3))
            .values_list("word", flat=True)
        )
        scored = [(similarity(word, other), other) for other in near]
        scored = [(s, other) for s, other in scored if s >= LEAST_SIMILARITY]
        scored.sort(key=lambda item: (-item[0], abs(len(item[1]) - len(word)), item[1]))
        if scored:
            found[word] = [other for _s, other in scored[:CANDIDATES]]
    return found


def alike_in(words, cases, using):
    """Whether a public case of `cases` has a word that begins with one of `words` or is
    like it enough to correct it. A change can bring a correction of a word the library
    lacked (or the word itself) only in the cases it changed: a cached search with such a
    word is weighed against their words, not the library's."""
    entries = SearchEntry.objects.using(using).public_for_search().filter(case_id__in=cases)
    # (a hair below the least: PostgreSQL weighs similarity in single precision)
    least = LEAST_SIMILARITY - 0.01
    if connections[using].vendor == "postgresql":
        sql, params = entries.values("search_text").query.sql_with_params()
        with connections[using].cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM ({sql}) e"  # noqa: S608 (the ORM's own SQL, and placeholders)
                " CROSS JOIN LATERAL unnest(string_to_array(e.search_text, ' ')) AS t(word)"
                " CROSS JOIN unnest(%s::text[]) AS q(w)"
                " WHERE starts_with(t.word, q.w) OR similarity(t.word, q.w) >= %s LIMIT 1",
                [*params, list(words), least],
            )
            return cursor.fetchone() is not None
    texts = entries.values_list("search_text", flat=True)
    found = {other for text in texts for other in text.split()}
    return any(
        other.startswith(word) or similarity(word, other) >= least
        for word in words
        for other in found
    )


def corrections(words, using):
    """{misspelled word: the word it probably meant} for the words of `words` that begin no
    word of the library, where a word a public case has is like enough."""
    return misspellings(words, using)[0]


def misspellings(words, using):
    """(corrections, as `corrections` gives them; the words of `words` that begin no word
    of the library, corrected or not)."""
    words = [w for w in dict.fromkeys(words) if len(w) >= SHORTEST_WORD and not w.isdigit()]
    misspelled = unknown(words, using)
    found = candidates(misspelled, using)
    offered = {c for options in found.values() for c in options}
    if not offered:
        return {}, misspelled
    public = SearchEntry.objects.using(using).public_for_search().filter(HasWord(OuterRef("word")))
    shown = set(
        SearchWord.objects.using(using)
        .filter(word__in=offered)
        .filter(Exists(public))
        .values_list("word", flat=True)
    )
    corrected = {
        word: next(c for c in options if c in shown)
        for word, options in found.items()
        if any(c in shown for c in options)
    }
    return corrected, misspelled
