"""“Check your own system”: the contributing factors that recur in the listed cases, each as
the question it asks of a reader's own system (the term's `question`), with the cases that
raise it and the follow-ups those cases took. The list page ends with it; `check.md` is
the same in Markdown (cases.public.check).

The factors are counted over the listed cases by the facet index (no query); the linked
cases and their follow-ups come from two queries, however many cases and factors there
are: at most MAX_QUESTIONS questions of at most MAX_LINKED cases each.
"""

from dataclasses import dataclass, field

from django.db.models import Prefetch
from django.utils.translation import gettext as _

from cases import markdown as case_markdown
from cases.catalogue.vocabularies import facet_of
from cases.models import Case, CaseStep, Vocabulary
from cases.templatetags.library import translated_text

# A factor recurs in at least this many cases; when fewer than MIN_QUESTIONS do, the most
# common ones are asked anyway (a short list still has questions to ask).
RECURS = 2
MIN_QUESTIONS = 3
MAX_QUESTIONS = 6
MAX_LINKED = 5  # cases linked under a question; the rest are counted and linked as a list
MAX_FOLLOW_UPS = 3  # follow-ups shown under a question, from its linked cases
FOLLOW_UP_LENGTH = 160  # characters of a follow-up shown, in plain text
# What a page with the section asks the database for it: the linked cases with their
# organisations, and their follow-ups.
CHECK_QUERIES = 2
# The list parameters that do not choose the cases: the section's links leave them out.
NOT_FILTERS = ("page", "expand", "sort", "tab")


@dataclass
class FollowUp:
    text: str  # plain text, cut to FOLLOW_UP_LENGTH
    language: str  # of the text, where it is not the page's ("" where it is)
    case: Case


@dataclass
class Question:
    term: object  # the contributing factor (a Term)
    text: str  # the question
    language: str  # the question's, where it is not the page's ("" where it is)
    count: int  # listed cases with the factor
    cases: list  # up to MAX_LINKED of them, newest first
    cases_query: str  # the list's filters with the factor: every listed case with it
    follow_ups: list = field(default_factory=list)

    @property
    def more(self):
        return self.count - len(self.cases)


@dataclass
class Check:
    questions: list
    total: int  # listed cases
    filters_query: str  # the list's filters, for links to the list and the export

    def case_keys(self):
        """The primary keys of the cases whose titles and follow-ups it shows."""
        return [case.pk for question in self.questions for case in question.cases]


def filters_of(data):
    """A QueryDict of a list's query string less what does not choose its cases."""
    filters = data.copy()
    for name in NOT_FILTERS:
        filters.pop(name, None)
    return filters


def question_text(term):
    """(the term's question in the page's language, or a general one naming the factor;
    the language it is in where that is not the page's, else "")."""
    asked = translated_text(term, "question")
    if asked and not asked.fallback:
        return asked.text, ""
    label = translated_text(term, "label")
    if asked and label.fallback:  # neither is in the page's language: ask in the other
        return asked.text, asked.language
    general = _("Could “%(factor)s” happen in your system too?") % {"factor": label.text}
    return general, ""


def recurring(index, listed, terms):
    """[(term, its listed cases as a CaseSet)] of the factors to ask about, most cases first."""
    found = []
    for term in terms:
        if term.vocabulary == Vocabulary.CONTRIBUTING:
            cases = listed & index.cases_with_term(term)
            if cases:
                found.append((term, cases))
    found.sort(key=lambda item: (-len(item[1]), str(translated_text(item[0], "label")).casefold()))
    recur = [item for item in found if len(item[1]) >= RECURS]
    return (recur if len(recur) >= MIN_QUESTIONS else found[:MIN_QUESTIONS])[:MAX_QUESTIONS]


def build_check(index, listed, terms, data):
    """The section for the listed cases (a CaseSet of `index`), or None if none of them has
    a contributing factor. `data` is the list's (bounded) query string."""
    if not listed:
        return None
    asked = recurring(index, listed, terms)
    if not asked:
        return None
    filters = filters_of(data)
    linked = {term.pk: newest_keys(cases) for term, cases in asked}
    by_pk = linked_cases({pk for keys in linked.values() for pk in keys})
    questions, seen = [], set()
    for term, cases in asked:
        shown = sorted(
            (by_pk[pk] for pk in linked[term.pk] if pk in by_pk),
            key=lambda case: (case.date, case.pk),
            reverse=True,
        )
        with_factor = filters.copy()
        facet = facet_of(Vocabulary.CONTRIBUTING)
        if term.slug not in with_factor.getlist(facet):
            with_factor.appendlist(facet, term.slug)
        question = Question(term, *question_text(term), len(cases), shown, with_factor.urlencode())
        question.follow_ups = follow_ups(shown, seen)
        questions.append(question)
    return Check(questions, len(listed), filters.urlencode())


def newest_keys(cases, count=MAX_LINKED):
    """The largest keys of a CaseSet: its most recently added cases."""
    bits, keys = cases.bits, []
    while bits and len(keys) < count:
        keys.append(bits.bit_length() - 1)
        bits ^= 1 << keys[-1]
    return keys


def linked_cases(pks):
    """{pk: case} of the public cases among `pks`, with their organisations and follow-up
    steps: CHECK_QUERIES queries."""
    if not pks:
        return {}
    return (
        Case.objects.public()
        .filter(pk__in=pks)
        .select_related("org")
        .only("pk", "public_id", "date", "title_en", "title_ko", "org__name")
        .prefetch_related(
            Prefetch(
                "steps",
                queryset=CaseStep.objects.filter(kind=CaseStep.Kind.ACTION_ITEM).order_by(
                    "position"
                ),
            )
        )
        .in_bulk()
    )


def follow_ups(cases, seen):
    """Up to MAX_FOLLOW_UPS follow-ups of these cases: the first of each case in turn, then
    the second, so that one long list does not crowd out the others; none shown under an
    earlier question (the primary keys of steps in `seen`, which grows with them)."""
    steps = [[step for step in case.steps.all() if step.pk not in seen] for case in cases]
    chosen = []
    for position in range(max(map(len, steps), default=0)):
        for case, its_steps in zip(cases, steps, strict=True):
            if position < len(its_steps) and len(chosen) < MAX_FOLLOW_UPS:
                seen.add(its_steps[position].pk)
                text = translated_text(its_steps[position], "text")
                chosen.append(
                    FollowUp(
                        shortened(case_markdown.plain(text.text)),
                        text.language if text.fallback else "",
                        case,
                    )
                )
    return chosen


def shortened(text, length=FOLLOW_UP_LENGTH):
    text = " ".join(text.split())
    if len(text) <= length:
        return text
    return text[: length - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
