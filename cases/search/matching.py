"""A search plan (cases.search.parsing) as conditions on the cases' search entries
(cases.models.SearchEntry, a narrow copy of what a search reads of each case), for the
database the queryset reads, with the `relevance` the list orders by.

PostgreSQL matches by one tsquery against the GIN-indexed vector (`'word':*` for a word's
beginning, `'stem' | '_stem'` for its other forms; cases.search.language); SQLite looks
for the same tokens in the search text. A phrase must also be found, words in order, in
the case's texts: the vector keeps no positions.

Relevance, highest first: how many clauses a case matches (only a partial search, where
cases may match some); whether it is of an organisation the query names; how many
clauses its titles hold; whether it has a term the query names. The list then orders by
date, newest first.
"""

from django.db.models import Case as Conditional
from django.db.models import Exists, F, IntegerField, OuterRef, Q, TextField, Value, When
from django.db.models.functions import Concat
from django.db.models.lookups import Contains

from cases.rules import LANGUAGES, TRACKED_FIELDS

from .language import STEM_MARK
from .planner import SearchVectorMatches

CLAUSE_WEIGHT = 100  # a partial search: each clause matched outranks everything else
ORGANISATION_WEIGHT = 30
TITLE_WEIGHT = 4  # each clause the titles hold
TERM_WEIGHT = 3


def tsquery_of_word(word, root):
    options = [f"'{word}':*"]
    if root:
        if root != word:
            options.append(f"'{root}'")
        options.append(f"'{STEM_MARK}{root}'")
    return options[0] if len(options) == 1 else "(" + " | ".join(options) + ")"


def tsquery_of_form(form):
    # Words are letters and digits only: no quoting needed inside the quotes.
    parts = [tsquery_of_word(w, s) for w, s in zip(form.words, form.stems, strict=True)]
    return parts[0] if len(parts) == 1 else "(" + " & ".join(parts) + ")"


def tsquery_of_clause(clause):
    parts = [tsquery_of_form(form) for form in clause.forms]
    return parts[0] if len(parts) == 1 else "(" + " | ".join(parts) + ")"


def text_condition_of_word(word, root):
    condition = Q(padded_search_text__contains=f" {word}")
    if root:
        condition |= Q(padded_search_text__contains=f" {root} ")
        condition |= Q(padded_search_text__contains=f" {STEM_MARK}{root} ")
    return condition


def phrase_condition(form):
    """The words in order, with nothing but spaces and punctuation between them, at the
    beginning of a word, in any text of the entry's case (a regular expression both
    databases read alike)."""
    pattern = r"(^|\W)" + r"\W+".join(form.words)
    condition = Q()
    for field in TRACKED_FIELDS:
        for language in LANGUAGES:
            condition |= Q(**{f"case__{field}_{language}__iregex": pattern})
    from cases.models import CaseStep

    steps = CaseStep.objects.filter(case=OuterRef("case_id")).filter(
        Q(text_en__iregex=pattern) | Q(text_ko__iregex=pattern)
    )
    return condition | Q(Exists(steps))


def form_condition(form, vendor):
    if vendor == "postgresql":
        condition = Q(SearchVectorMatches(tsquery_of_form(form)))
    else:
        condition = Q()
        for word, root in zip(form.words, form.stems, strict=True):
            condition &= text_condition_of_word(word, root)
    if form.phrase:
        condition &= phrase_condition(form)
    return condition


def clause_condition(clause, vendor):
    condition = Q()
    for form in clause.forms:
        condition |= form_condition(form, vendor)
    return condition


def in_titles(clause, titles):
    """Whether the titles hold the clause as the reader wrote it (each word, or its stem),
    or, for a Korean clause, as an English title would say it.

    Not every other name: each test costs a search matching 100,000 cases 10 ms, and the
    names of an organisation or term rank by that organisation or term. But a Korean
    reader's words are mostly found in English titles, the library's first language."""
    forms = [clause.own]
    if not "".join(clause.own.words).isascii():
        forms += [form for form in clause.forms[1:] if "".join(form.words).isascii()]
    condition = Q()
    for form in forms:
        words = Q()
        for word, root in zip(form.words, form.stems, strict=True):
            words &= Q(Contains(titles, root or word))
        condition |= words
    return condition


def one_if(condition, weight=1):
    return Conditional(
        When(condition, then=Value(weight)), default=Value(0), output_field=IntegerField()
    )


def apply_plan(queryset, plan, vendor, *, few=False):
    """The search entries of `queryset` that `plan` finds, annotated with `relevance`.
    `few`: the query will be narrowed to a few cases by key (a cached page's check), so a
    named term's cases are looked up for each entry; otherwise they are read once, whole."""
    if not plan:  # only punctuation or symbols: nothing to look for, nothing to rank
        return queryset.annotate(relevance=Value(0))
    if vendor != "postgresql":
        queryset = queryset.alias(
            padded_search_text=Concat(
                Value(" "), "search_text", Value(" "), output_field=TextField()
            )
        )
    score = Value(0)
    if plan.partial:
        if vendor == "postgresql":
            joined = " | ".join(tsquery_of_clause(c) for c in plan.clauses)
            queryset = queryset.filter(SearchVectorMatches(joined))
        else:
            queryset = queryset.filter(
                Q.create([clause_condition(c, vendor) for c in plan.clauses], connector=Q.OR)
            )
        for clause in plan.clauses:
            score = score + one_if(clause_condition(clause, vendor), CLAUSE_WEIGHT)
    else:
        if vendor == "postgresql":
            joined = " & ".join(tsquery_of_clause(c) for c in plan.clauses)
            queryset = queryset.filter(SearchVectorMatches(joined))
            phrases = [c for c in plan.clauses if any(f.phrase for f in c.forms)]
            for clause in phrases:
                queryset = queryset.filter(clause_condition(clause, vendor))
        else:
            for clause in plan.clauses:
                queryset = queryset.filter(clause_condition(clause, vendor))
    if plan.organisations:
        score = score + one_if(Q(org_id__in=plan.organisations), ORGANISATION_WEIGHT)
    titles = F("title_words")  # both titles, lowered as the entry was written
    for clause in plan.clauses:
        score = score + one_if(in_titles(clause, titles), TITLE_WEIGHT)
    if plan.terms:
        from cases.models import CaseTerm

        # PostgreSQL hashes an IN subquery whole: right for a list, but a check of three
        # cases read the 21,000 cases of "database" to score them (bench/RESULTS.md).
        if few:
            tagged = CaseTerm.objects.filter(case=OuterRef("case_id"), term_id__in=plan.terms)
            having = Q(Exists(tagged))
        else:
            having = Q(pk__in=CaseTerm.objects.filter(term_id__in=plan.terms).values("case_id"))
        score = score + one_if(Q(root_cause_id__in=plan.terms) | having, TERM_WEIGHT)
    return queryset.annotate(relevance=score)
