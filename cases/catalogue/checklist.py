"""“Check your own system”: the contributing factors that recur in the listed cases, each as
the question it asks of a reader's own system (the term's `question`), with the cases that
raise it and the follow-ups those cases took. The list page ends with it; `check.md` is
the same in Markdown (cases.public.check).

The factors are counted over the listed cases by the facet index (no query); the linked
cases and their follow-ups come from one query, however many cases and factors there
are: at most MAX_QUESTIONS questions of at most MAX_LINKED cases each.

Every list page rendered afresh builds it, so it reads only the columns it shows, as
tuples rather than models, and renders each linked case's and follow-up's line itself
(`item_html`; the template, check_section.html, has the rest): at 10,000 cases on SQLite,
building and rendering it took 10 to 16 ms with models and a `{% url %}`, a translation
filter and a blocktranslate an item, and takes 2 to 3 ms so.
"""

import functools
from dataclasses import dataclass, field

from django.db import connections, router
from django.db.models import F, FilteredRelation, Q, Window
from django.db.models.functions import RowNumber
from django.urls import reverse
from django.utils.formats import localize
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from cases import markdown as case_markdown
from cases.catalogue.shown_texts import LANGUAGE_CODES, fallback_order
from cases.catalogue.vocabularies import facet_of
from cases.models import Case, CaseStep, Vocabulary
from cases.templatetags.library import Translated, translated_text

# A factor recurs in at least this many cases; when fewer than MIN_QUESTIONS do, the most
# common ones are asked anyway (a short list still has questions to ask).
RECURS = 2
MIN_QUESTIONS = 3
MAX_QUESTIONS = 6
MAX_LINKED = 5  # cases linked under a question; the rest are counted and linked as a list
MAX_FOLLOW_UPS = 3  # follow-ups shown under a question, from its linked cases
FOLLOW_UP_LENGTH = 160  # characters of a follow-up shown, in plain text
# What a page with the section asks the database for it: the linked cases with their
# organisations and follow-ups.
CHECK_QUERIES = 1
# The list parameters that do not choose the cases: the section's links leave them out.
NOT_FILTERS = ("page", "expand", "sort", "tab")
# The most cases a check links: its statement (linked_statement) has a slot for each key.
KEY_SLOTS = MAX_QUESTIONS * MAX_LINKED
# Any id the case page's address takes (cases.rules.CASE_ID_PATTERN), to reverse it once.
SOME_CASE_ID = "IL-0000"


@dataclass
class LinkedCase:
    """What the section shows of a case it links."""

    pk: int
    public_id: str
    title: Translated
    org_name: str
    url: str  # its page, in the page's language

    @functools.cached_property
    def item_html(self):
        """Its line under a question, on the list page (under each that links it)."""
        return format_html(
            '<li><a class="check-case" href="{}">{}</a> <span{}>{}</span>'
            ' <span class="muted">({})</span></li>',
            self.url,
            self.public_id,
            lang_attribute(self.title.language if self.title.fallback else ""),
            self.title,
            self.org_name,
        )


@dataclass
class FollowUp:
    text: str  # plain text, cut to FOLLOW_UP_LENGTH
    language: str  # of the text, where it is not the page's ("" where it is)
    case: LinkedCase

    @property
    def item_html(self):
        """Its line under its question, on the list page."""
        return format_html(
            '<li><span{}>{}</span> <a href="{}" class="check-source">{}</a></li>',
            lang_attribute(self.language),
            self.text,
            self.case.url,
            self.case.public_id,
        )


def counted(words, count):
    """A translation with a count, safe as blocktranslate's (its words are not escaped)."""
    return mark_safe(words % {"counter": localize(count)})


def lang_attribute(language):
    return format_html(' lang="{}"', language) if language else ""


@dataclass(frozen=True)
class Factor:
    """What a question shows of its contributing factor besides its label: kept with each
    cached list (cases.catalogue.list_blocks), which a model instance would weigh down."""

    pk: int
    slug: str


@dataclass
class Question:
    term: Factor  # the contributing factor
    label: Translated  # the factor's
    text: str  # the question
    language: str  # the question's, where it is not the page's ("" where it is)
    count: int  # listed cases with the factor
    cases: list  # up to MAX_LINKED LinkedCases, newest first
    cases_query: str  # the list's filters with the factor: every listed case with it
    cases_url: str  # the list at cases_query
    follow_ups: list = field(default_factory=list)

    @property
    def more(self):
        return self.count - len(self.cases)

    # The page's words for the counts, as `{% blocktranslate count %}` would have them.
    @property
    def count_text(self):
        return counted(ngettext("%(counter)s case", "%(counter)s cases", self.count), self.count)

    @property
    def more_text(self):
        words = ngettext("and %(counter)s more case", "and %(counter)s more cases", self.more)
        return counted(words, self.more)


@dataclass
class Check:
    questions: list
    total: int  # listed cases
    filters_query: str  # the list's filters, for links to the list and the export
    plan: object = None  # the CheckPlan it was made from

    def case_keys(self):
        """The primary keys of the cases whose titles and follow-ups it shows."""
        return [case.pk for question in self.questions for case in question.cases]


@dataclass(frozen=True)
class AskedQuestion:
    """A question as the index asks it, before its cases' texts are read."""

    term: Factor
    label: Translated
    text: str
    language: str
    count: int
    keys: tuple  # of its linked cases, the newest first
    cases_query: str
    cases_url: str


@dataclass(frozen=True)
class CheckPlan:
    """What a section asks and of which cases, from the facet index alone: a change of
    those cases' texts changes the section made from it (`check_of`), not the plan."""

    asked: tuple
    total: int
    filters_query: str

    def case_keys(self):
        return {pk for question in self.asked for pk in question.keys}


def filters_of(data):
    """A QueryDict of a list's query string less what does not choose its cases."""
    filters = data.copy()
    for name in NOT_FILTERS:
        filters.pop(name, None)
    return filters


def question_text(term, label):
    """(the term's question in the page's language, or a general one naming the factor (its
    `label`, a Translated); the language it is in where that is not the page's, else "")."""
    asked = translated_text(term, "question")
    if asked and not asked.fallback:
        return asked.text, ""
    if asked and label.fallback:  # neither is in the page's language: ask in the other
        return asked.text, asked.language
    general = _("Could “%(factor)s” happen in your system too?") % {"factor": label.text}
    return general, ""


def recurring(index, listed, terms):
    """[(term, its label, its listed cases as a CaseSet)] of the factors to ask about, most
    cases first."""
    found = []
    for term in terms:
        if term.vocabulary == Vocabulary.CONTRIBUTING:
            cases = listed & index.cases_with_term(term)
            if cases:
                found.append((term, translated_text(term, "label"), cases))
    found.sort(key=lambda item: (-len(item[2]), item[1].text.casefold()))
    recur = [item for item in found if len(item[2]) >= RECURS]
    return (recur if len(recur) >= MIN_QUESTIONS else found[:MIN_QUESTIONS])[:MAX_QUESTIONS]


def build_check(index, listed, terms, data):
    """The section for the listed cases (a CaseSet of `index`), or None if none of them has
    a contributing factor. `data` is the list's (bounded) query string."""
    plan = plan_check(index, listed, terms, data)
    return check_of(plan) if plan is not None else None


def plan_check(index, listed, terms, data):
    """The CheckPlan of the section for the listed cases, or None (no section)."""
    if not listed:
        return None
    asked = recurring(index, listed, terms)
    if not asked:
        return None
    filters = filters_of(data)
    facet = facet_of(Vocabulary.CONTRIBUTING)
    list_path = reverse("cases:list")
    questions = []
    for term, label, cases in asked:
        with_factor = filters.copy()
        if term.slug not in with_factor.getlist(facet):
            with_factor.appendlist(facet, term.slug)
        text, language = question_text(term, label)
        cases_query = with_factor.urlencode()
        questions.append(
            AskedQuestion(
                Factor(term.pk, term.slug),
                label,
                text,
                language,
                len(cases),
                tuple(newest_keys(cases)),
                cases_query,
                f"{list_path}?{cases_query}",
            )
        )
    return CheckPlan(tuple(questions), len(listed), filters.urlencode())


def check_of(plan):
    """The section a CheckPlan asks, its linked cases and follow-ups read (one query)."""
    by_pk, steps = linked_cases(plan.case_keys())
    questions, seen = [], set()
    for asked in plan.asked:
        shown = [case for pk, case in by_pk.items() if pk in asked.keys]  # newest first
        question = Question(
            asked.term,
            asked.label,
            asked.text,
            asked.language,
            asked.count,
            shown,
            asked.cases_query,
            asked.cases_url,
        )
        question.follow_ups = follow_ups(shown, steps, seen)
        questions.append(question)
    return Check(questions, plan.total, plan.filters_query, plan)


def newest_keys(cases, count=MAX_LINKED):
    """The largest keys of a CaseSet: its most recently added cases."""
    bits, keys = cases.bits, []
    while bits and len(keys) < count:
        keys.append(bits.bit_length() - 1)
        bits ^= 1 << keys[-1]
    return keys


def text_languages():
    """(the page's language, the languages a text is looked for in, in turn): as
    translated_text looks, the page's, the default one, any other."""
    page = get_language()
    return page, [code for code in fallback_order(page) if code in LANGUAGE_CODES]


def first_text(texts, languages):
    """What translated_text gives of a model, of `texts`: one a language, in the order of
    `languages` (text_languages')."""
    page, order = languages
    for text, language in zip(texts, order, strict=True):
        if text:
            return Translated(text, language, language != page)
    return Translated("", page, False)


def case_address_parts():
    """(what comes before a case's id in its page's address, what comes after), in the
    active language: reversed once for many links, for a case id is the same in its
    address (CaseIdConverter)."""
    before, _id, after = reverse("cases:detail", args=[SOME_CASE_ID]).rpartition(SOME_CASE_ID)
    return before, after


def linked_cases(pks):
    """({pk: LinkedCase}, newest first, {pk: [(step pk, its texts)]}) of the public cases
    among `pks` and of their follow-up steps in order, each step's texts in text_languages'
    order: one query (CHECK_QUERIES); none without keys."""
    if not pks:
        return {}, {}
    languages = text_languages()
    statement = linked_statement(router.db_for_read(Case), tuple(languages[1]))
    keys = sorted(pks)
    if len(keys) > KEY_SLOTS:
        raise ValueError(f"{len(keys)} cases to link, more than {KEY_SLOTS}")
    keys += keys[:1] * (KEY_SLOTS - len(keys))  # a key twice finds its case once
    with connections[statement.alias].cursor() as cursor:
        cursor.execute(statement.sql, statement.parameters(keys))
        rows = cursor.fetchall()
    before, after = case_address_parts()
    by_pk, steps, titles = {}, {}, len(languages[1])
    for pk, public_id, org, step_pk, *texts in rows:  # a row a step, or the case's if none
        if pk not in by_pk:
            title = first_text(texts[:titles], languages)
            by_pk[pk] = LinkedCase(pk, public_id, title, org, f"{before}{public_id}{after}")
        if step_pk is not None:
            steps.setdefault(pk, []).append((step_pk, texts[titles:]))
    return by_pk, steps


@dataclass(frozen=True)
class Statement:
    alias: str  # of the database it is written for
    sql: str
    template: tuple  # its parameters, with the index of a key where one goes

    def parameters(self, keys):
        return [keys[p.index] if isinstance(p, KeySlot) else p for p in self.template]


@dataclass(frozen=True)
class KeySlot:
    index: int


@functools.cache
def linked_statement(alias, languages):
    """The statement linked_cases runs, in `alias`'s SQL, with KEY_SLOTS slots for keys:
    compiled once, since the ORM takes ten times as long to build and compile it (about
    1 ms) as the database takes to answer it. The newest cases first, each one's first
    follow-up steps in order, as many as the questions could show (or the case alone);
    the cases' titles, then the steps' texts, in the order of `languages`."""
    stand_ins = {-1 - index: KeySlot(index) for index in range(KEY_SLOTS)}  # no real key
    action = FilteredRelation("steps", condition=Q(steps__kind=CaseStep.Kind.ACTION_ITEM))
    # A case's steps shown under a question are the first that none above it showed.
    nth_step = Window(
        RowNumber(), partition_by=F("pk"), order_by=(F("action__position"), F("action__pk"))
    )
    columns = [
        "pk",
        "public_id",
        "org__name",
        "action__pk",
        *(f"title_{code}" for code in languages),
        *(f"action__text_{code}" for code in languages),
    ]
    compiler = (
        # By their keys: SQLite, which has no statistics, would read every public case by
        # the status index to find them (1 ms at 10,000 cases); this test uses no index.
        Case.objects.using(alias)
        .public_for_search()
        .rewrite(False)  # modeltranslation's values_list would select in another order
        .filter(pk__in=list(stand_ins))
        .annotate(action=action, nth_step=nth_step)
        .filter(nth_step__lte=MAX_QUESTIONS * MAX_FOLLOW_UPS)
        .order_by("-date", "-pk", "action__position", "action__pk")
        .values_list(*columns)
        .query.get_compiler(alias)
    )
    sql, parameters = compiler.as_sql()
    template = tuple(stand_ins[p] if type(p) is int and p in stand_ins else p for p in parameters)
    if [name for _expression, _sql, name in compiler.select] != columns or sum(
        isinstance(p, KeySlot) for p in template
    ) != KEY_SLOTS:
        raise AssertionError(f"linked_statement: not the statement it expects: {sql}")
    return Statement(alias, sql, template)


def follow_ups(cases, steps, seen):
    """Up to MAX_FOLLOW_UPS follow-ups of these cases (`steps`: linked_cases'): the first
    of each case in turn, then the second, so that one long list does not crowd out the
    others; none shown under an earlier question (the primary keys of steps in `seen`,
    which grows with them)."""
    languages = text_languages()
    unseen = [[step for step in steps.get(case.pk, ()) if step[0] not in seen] for case in cases]
    chosen = []
    for position in range(max(map(len, unseen), default=0)):
        for case, its_steps in zip(cases, unseen, strict=True):
            if position < len(its_steps) and len(chosen) < MAX_FOLLOW_UPS:
                step_pk, texts = its_steps[position]
                seen.add(step_pk)
                text = first_text(texts, languages)
                chosen.append(
                    FollowUp(
                        follow_up_text(text.text),
                        text.language if text.fallback else "",
                        case,
                    )
                )
    return chosen


def follow_up_text(text):
    """A step's text as a follow-up shows it. The pages rendered after one change show the
    same few (the newest cases'): they are kept, as case_markdown keeps its HTML."""
    if len(text) > case_markdown.CACHED_TEXT_LENGTH:
        return shortened(case_markdown.plain(text))
    return cached_follow_up_text(text)


@functools.lru_cache(maxsize=case_markdown.CACHE_SIZE)
def cached_follow_up_text(text):
    return shortened(case_markdown.plain(text))


def shortened(text, length=FOLLOW_UP_LENGTH):
    text = " ".join(text.split())
    if len(text) <= length:
        return text
    return text[: length - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
