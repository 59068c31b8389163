"""“Check your own system”: the questions the listed cases' contributing factors raise, on
the list page and as Markdown (issue 23, point 6)."""

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cases.caching import public_content_changed
from cases.models import Case, CaseStep, Vocabulary
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, CaseStepFactory, OrganisationFactory, TermFactory
from tests.public.test_views import BAD_QUERIES

pytestmark = pytest.mark.django_db

TIMEOUTS_EN = "Does every request have a timeout?"
TIMEOUTS_KO = "모든 요청에 타임아웃이 있습니까?"
MONITORING_EN = "Would an alert tell you first?"
MONITORING_KO = "알림이 먼저 알려 줍니까?"


@pytest.fixture
def factors():
    return {
        "timeouts": TermFactory(
            vocabulary=Vocabulary.CONTRIBUTING,
            slug="missing-timeouts",
            label_en="Missing timeouts",
            label_ko="타임아웃 부재",
            question_en=TIMEOUTS_EN,
            question_ko=TIMEOUTS_KO,
        ),
        "monitoring": TermFactory(
            vocabulary=Vocabulary.CONTRIBUTING,
            slug="monitoring-gap",
            label_en="Monitoring gap",
            label_ko="모니터링 공백",
            question_en=MONITORING_EN,
            question_ko=MONITORING_KO,
        ),
        # No question written yet: a general one is asked.
        "overlap": TermFactory(
            vocabulary=Vocabulary.CONTRIBUTING,
            slug="overlapping-failures",
            label_en="Overlapping failures",
            label_ko="장애 중첩",
        ),
        "dns": TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS"),
    }


@pytest.fixture
def checked(factors):
    """Three public cases with missing timeouts, two of them with a monitoring gap, one
    with overlapping failures; a draft and a withdrawn case with secrets of their own."""
    f = factors
    org = OrganisationFactory(slug="acme", name="Acme")
    cases = {
        "a": CaseFactory(
            public_id="IL-0101",
            org=org,
            title_en="Hub stopped answering",
            title_ko="허브가 응답하지 않음",
            with_terms=[f["timeouts"], f["monitoring"], f["dns"]],
        ),
        "b": CaseFactory(public_id="IL-0102", org=org, with_terms=[f["timeouts"]]),
        "c": CaseFactory(public_id="IL-0103", org=org, with_terms=[f["timeouts"], f["monitoring"]]),
        "f": CaseFactory(public_id="IL-0106", org=org, with_terms=[f["overlap"]]),
        "draft": CaseFactory(
            public_id="IL-0104",
            status=Case.Status.DRAFT,
            published_at=None,
            title_en="Draft secret",
            with_terms=[f["monitoring"], f["overlap"], f["timeouts"]],
        ),
        "withdrawn": CaseFactory(
            public_id="IL-0105",
            status=Case.Status.WITHDRAWN,
            published_at=None,
            title_en="Withdrawn secret",
            with_terms=[f["monitoring"], f["overlap"], f["timeouts"]],
        ),
    }
    CaseStepFactory(
        case=cases["a"],
        kind=CaseStep.Kind.ACTION_ITEM,
        text_en="Added a timeout to **every** request.",
        text_ko="요청마다 타임아웃을 넣었다.",
    )
    CaseStepFactory(case=cases["a"], kind=CaseStep.Kind.REMEDIATION, text_en="Restarted pods.")
    for secret in ("draft", "withdrawn"):
        CaseStepFactory(
            case=cases[secret],
            kind=CaseStep.Kind.ACTION_ITEM,
            text_en=f"{secret} follow-up secret",
            text_ko="비밀",
        )
    refresh_search_text(Case.objects.all())
    return cases


def section(response):
    html = response.content.decode()
    found = re.search(r'<section class="check".*?</section>', html, flags=re.S)
    assert found, "no check section on the page"
    return found.group(0)


def questions(response):
    """[(question, [linked case ids])] in the section's order."""
    return [
        (re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", item.group(1))).strip(), links)
        for item, links in (
            (
                re.search(r'<h3 class="check-question-text">(.*?)</h3>', li, flags=re.S),
                re.findall(r'class="check-case" href="/\w\w/cases/(IL-\d+)/"', li),
            )
            for li in section(response).split('<li class="check-question"')[1:]
        )
    ]


def test_check_section_asks_the_recurring_factors_questions_most_cases_first(client, checked):
    response = client.get("/en/cases/")
    assert response.status_code == 200
    asked = questions(response)
    assert asked[:2] == [
        (TIMEOUTS_EN, ["IL-0103", "IL-0102", "IL-0101"]),
        (MONITORING_EN, ["IL-0103", "IL-0101"]),
    ]
    # Few factors recur: the next most common is asked too, in general words.
    assert asked[2] == (
        "Could “Overlapping failures” happen in your system too?",
        ["IL-0106"],
    )
    html = section(response)
    assert "Check your own system" in html
    assert 'href="/en/cases/?contributing=missing-timeouts"' in html


def test_check_section_is_in_korean_on_korean_pages(client, checked):
    response = client.get("/ko/cases/")
    html = section(response)
    assert "내 시스템에도 있는지 확인하기" in html
    assert [q for q, _links in questions(response)][:2] == [TIMEOUTS_KO, MONITORING_KO]
    assert "타임아웃 부재" in html and "모니터링 공백" in html
    assert "Missing timeouts" not in html and "Check your own system" not in html
    assert "요청마다 타임아웃을 넣었다." in html
    assert 'href="/ko/cases/IL-0101/"' in html


def test_check_section_follows_the_filters_and_the_search(client, checked):
    asked = questions(client.get("/en/cases/?component=dns"))
    assert asked == [(TIMEOUTS_EN, ["IL-0101"]), (MONITORING_EN, ["IL-0101"])]
    asked = questions(client.get("/en/cases/?contributing=overlapping-failures"))
    assert asked == [("Could “Overlapping failures” happen in your system too?", ["IL-0106"])]
    asked = questions(client.get("/en/cases/?q=hub"))
    assert [links for _q, links in asked] == [["IL-0101"], ["IL-0101"]]


def test_nothing_from_drafts_or_withdrawn_cases_appears(client, checked):
    for path in ("/en/cases/", "/en/check.md", "/en/cases/?contributing=overlapping-failures"):
        text = client.get(path).content.decode()
        for secret in ("IL-0104", "IL-0105", "secret"):
            assert secret not in text, (path, secret)
    response = client.get("/en/cases/?sort=oldest")  # rendered afresh, not from the cache
    counts = {q.term.slug: q.count for q in response.context["listing"].check.questions}
    assert counts == {"missing-timeouts": 3, "monitoring-gap": 2, "overlapping-failures": 1}


def test_check_shows_the_follow_ups_the_linked_cases_took(client, checked):
    html = section(client.get("/en/cases/"))
    # As plain text (no Markdown marks), linked to the case that took it; remediation
    # steps are not follow-ups.
    assert "Added a timeout to every request." in html
    assert "**" not in html and "Restarted pods." not in html
    # Under the first question that links its case, not again under the next.
    assert html.count("Added a timeout to every request.") == 1
    follow_up = r'Added a timeout to every request\.</span>\s*<a href="/en/cases/IL-0101/"'
    assert re.search(follow_up, html)


def test_a_question_links_at_most_five_cases_and_counts_the_rest(client, factors):
    for n in range(8):
        CaseFactory(public_id=f"IL-{n + 200:04d}", with_terms=[factors["timeouts"]])
    response = client.get("/en/cases/")
    ((question, links),) = questions(response)
    assert question == TIMEOUTS_EN
    assert links == ["IL-0207", "IL-0206", "IL-0205", "IL-0204", "IL-0203"]
    html = section(response)
    assert "and 3 more" in html
    assert 'href="/en/cases/?contributing=missing-timeouts"' in html


def test_at_most_six_questions_are_asked(client):
    many = [
        TermFactory(vocabulary=Vocabulary.CONTRIBUTING, slug=f"factor-{n}", question_en=f"Q{n}?")
        for n in range(10)
    ]
    for n in range(10):
        CaseFactory(with_terms=many[: n + 1])  # factor-0 in ten cases, factor-9 in one
    asked = [question for question, _links in questions(client.get("/en/cases/"))]
    assert asked == ["Q0?", "Q1?", "Q2?", "Q3?", "Q4?", "Q5?"]


def test_no_section_without_contributing_factors(client, factors):
    CaseFactory(with_terms=[factors["dns"]])
    assert '<section class="check"' not in client.get("/en/cases/").content.decode()
    text = client.get("/en/check.md").content.decode()
    assert "None of these cases names a contributing factor." in text


def test_a_korean_page_shows_what_has_no_korean_in_english_marked_as_english(client):
    """Each text shown in the default language, for want of Korean, says so (lang="en"): a
    factor's label and question, a linked case's title, a follow-up. The export shows them
    too, without the marks."""
    untranslated = TermFactory(
        vocabulary=Vocabulary.CONTRIBUTING,
        slug="clock-skew",
        label_en="Clock skew",
        label_ko="",
        question_en="Do your clocks agree?",
    )
    labelled = TermFactory(
        vocabulary=Vocabulary.CONTRIBUTING, slug="stale-cache", label_ko="오래된 캐시"
    )
    org = OrganisationFactory(name="Acme & Sons")
    english = CaseFactory(
        public_id="IL-0601",
        org=org,
        title_en="Clocks <drifted>",
        title_ko="",
        with_terms=[untranslated, labelled],
    )
    korean = CaseFactory(
        public_id="IL-0602", org=org, title_ko="시계가 어긋남", with_terms=[untranslated, labelled]
    )
    CaseStepFactory(
        case=english, kind=CaseStep.Kind.ACTION_ITEM, text_en="Ran *NTP* everywhere.", text_ko=""
    )
    CaseStepFactory(case=korean, kind=CaseStep.Kind.ACTION_ITEM, text_ko="시계를 맞췄다.")
    html = section(client.get("/ko/cases/"))
    assert (
        '<h3 class="check-question-text" lang="en">Do your clocks agree?</h3>\n'
        '      <p class="check-factor">기여 요인: '
        '<a href="/ko/cases/?contributing=clock-skew" lang="en">Clock skew</a>\n'
        "        · 2건</p>"
    ) in html
    assert (
        '<ul class="check-cases">\n'
        '        <li><a class="check-case" href="/ko/cases/IL-0602/">IL-0602</a> '
        '<span>시계가 어긋남</span> <span class="muted">(Acme &amp; Sons)</span></li>\n'
        '        <li><a class="check-case" href="/ko/cases/IL-0601/">IL-0601</a> '
        '<span lang="en">Clocks &lt;drifted&gt;</span> <span class="muted">(Acme &amp; Sons)</span>'
        "</li>\n"
        "        \n"
        "      </ul>"
    ) in html
    assert (
        '<ul class="check-follow-ups">\n'
        '        <li><span>시계를 맞췄다.</span> <a href="/ko/cases/IL-0602/" class="check-source">'
        "IL-0602</a></li>\n"
        '        <li><span lang="en">Ran NTP everywhere.</span> <a href="/ko/cases/IL-0601/" '
        'class="check-source">IL-0601</a></li>\n'
        "        \n"
        "      </ul>"
    ) in html
    # A label in Korean, a question in neither language: asked in Korean, unmarked.
    assert '<h3 class="check-question-text">내 시스템에도 “오래된 캐시” 문제가' in html
    assert '<a href="/ko/cases/?contributing=stale-cache">오래된 캐시</a>' in html
    text = client.get("/ko/check.md").content.decode()
    assert "## Do your clocks agree?\n\n기여 요인: Clock skew, 2건." in text
    assert "- [IL-0601: Clocks &lt;drifted&gt;](http://testserver/ko/cases/IL-0601/)" in text
    assert "- Ran NTP everywhere. ([IL-0601](http://testserver/ko/cases/IL-0601/))" in text


def test_a_question_links_its_cases_newest_first_by_their_dates(client, factors):
    import datetime

    for public_id, year in (("IL-0701", 2020), ("IL-0702", 2010), ("IL-0703", 2015)):
        CaseFactory(
            public_id=public_id,
            date=datetime.date(year, 5, 1),
            with_terms=[factors["timeouts"]],
        )
    CaseFactory(
        public_id="IL-0704", date=datetime.date(2015, 5, 1), with_terms=[factors["timeouts"]]
    )
    ((_question, links),) = questions(client.get("/en/cases/"))
    assert links == ["IL-0701", "IL-0704", "IL-0703", "IL-0702"]  # the same day: newest added


def test_follow_ups_come_in_their_cases_order_and_the_next_question_shows_the_next(client, factors):
    """Each linked case's first follow-up in turn, then the second...; a question below
    shows those of a case's follow-ups that none above it showed."""
    older = CaseFactory(public_id="IL-0801", with_terms=[factors["timeouts"], factors["dns"]])
    newer = CaseFactory(public_id="IL-0802", with_terms=[factors["timeouts"]])
    CaseFactory(public_id="IL-0803", with_terms=[factors["monitoring"]])
    older.case_terms.create(term=factors["monitoring"], position=5)
    for position in (4, 2, 0, 3, 1):  # added out of order
        CaseStepFactory(
            case=older,
            kind=CaseStep.Kind.ACTION_ITEM,
            position=position,
            text_en=f"Older step {position}.",
        )
    CaseStepFactory(case=older, kind=CaseStep.Kind.REMEDIATION, position=0, text_en="Fixed.")
    CaseStepFactory(case=newer, kind=CaseStep.Kind.ACTION_ITEM, position=7, text_en="Newer step.")
    html = section(client.get("/en/cases/"))
    shown = [
        re.findall(r"<span>([^<]*)</span> <a [^>]*check-source", part)
        for part in html.split('<li class="check-question"')[1:]
    ]
    assert shown == [
        ["Newer step.", "Older step 0.", "Older step 1."],  # missing timeouts: IL-0802, IL-0801
        ["Older step 2.", "Older step 3.", "Older step 4."],  # monitoring gap: IL-0803, IL-0801
    ]


def test_one_case_under_every_question_shows_its_next_follow_ups_under_each(client):
    many = [
        TermFactory(vocabulary=Vocabulary.CONTRIBUTING, slug=f"factor-{n}", question_en=f"Q{n}?")
        for n in range(6)
    ]
    CaseFactory(public_id="IL-0901", with_terms=many)
    busy = CaseFactory(public_id="IL-0902", with_terms=many)
    for position in range(19):
        CaseStepFactory(
            case=busy,
            kind=CaseStep.Kind.ACTION_ITEM,
            position=position,
            text_en=f"Step {position}.",
        )
    html = section(client.get("/en/cases/"))
    shown = [
        re.findall(r"<span>Step (\d+)\.</span>", part)
        for part in html.split('<li class="check-question"')[1:]
    ]
    assert shown == [[str(n), str(n + 1), str(n + 2)] for n in range(0, 18, 3)]


# --- Markdown ----------------------------------------------------------------------


def test_check_markdown_export_has_the_section_with_absolute_links(client, checked):
    html = section(client.get("/en/cases/?component=dns&page=1"))
    assert 'href="/en/check.md?component=dns"' in html
    response = client.get("/en/check.md?component=dns")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == 'inline; filename="check-your-own-system-en.md"'
    text = response.content.decode()
    assert text.startswith("# Check your own system\n")
    assert f"## {TIMEOUTS_EN}" in text and f"## {MONITORING_EN}" in text
    assert "[IL-0101: Hub stopped answering](http://testserver/en/cases/IL-0101/)" in text
    assert "IL-0102" not in text  # not a DNS case
    assert "http://testserver/en/cases/?component=dns" in text
    assert "Added a timeout to every request." in text


def test_check_markdown_in_korean(client, checked):
    response = client.get("/ko/check.md")
    assert response["Content-Disposition"] == 'inline; filename="check-your-own-system-ko.md"'
    text = response.content.decode()
    assert text.startswith("# 내 시스템에도 있는지 확인하기\n")
    assert f"## {TIMEOUTS_KO}" in text
    assert "[IL-0101: 허브가 응답하지 않음](http://testserver/ko/cases/IL-0101/)" in text
    assert "Check your own system" not in text


def test_check_markdown_escapes_what_titles_would_make_markdown(client, factors):
    CaseFactory(
        public_id="IL-0301",
        title_en="[click](javascript:x) *bold* <b>",
        with_terms=[factors["timeouts"]],
    )
    text = client.get("/en/check.md").content.decode()
    assert "[click](javascript:x)" not in text and "<b>" not in text
    assert r"\[click\](javascript:x) \*bold\* &lt;b&gt;" in text


def test_check_markdown_is_served_from_the_cache_with_its_headers(client, checked):
    first = client.get("/en/check.md")
    second = client.get("/en/check.md")
    assert (first["X-Cache"], second["X-Cache"]) == ("miss", "hit")
    assert second["Content-Disposition"] == first["Content-Disposition"]
    assert second["Content-Type"] == "text/markdown; charset=utf-8"
    assert second.content == first.content


@pytest.mark.parametrize("query", BAD_QUERIES)
def test_no_query_string_breaks_the_check_export(client, checked, query):
    response = client.get(f"/en/check.md?{query}")
    assert response.status_code == 200, query
    assert "<script>" not in response.content.decode()


def test_check_export_says_why_a_bad_filter_lists_nothing(client, checked):
    text = client.get("/en/check.md?from=2019-13-45").content.decode()
    assert "“2019-13-45” is not a date in the form YYYY-MM-DD." in text
    assert "No published case matches these filters." in text
    assert "##" not in text
    text = client.get("/en/check.md?component=dns&contributing=overlapping-failures").content
    assert "No published case matches these filters." in text.decode()
    text = client.get("/ko/check.md?org=nobody").content.decode()
    assert "기여 요인" not in text and "No published" not in text


def test_check_export_of_a_merged_terms_old_slug_redirects(client, checked, factors):
    from cases.editorial.names import term_merge

    other = TermFactory(vocabulary=Vocabulary.CONTRIBUTING, slug="no-timeouts")
    CaseFactory(with_terms=[other])
    term_merge(survivor=factors["timeouts"], others=[other])
    response = client.get("/en/check.md?contributing=no-timeouts")
    assert response.status_code == 301
    assert response["Location"] == "/en/check.md?contributing=missing-timeouts"


# --- cost and freshness -------------------------------------------------------------


def test_check_costs_the_same_queries_however_many_cases_and_factors(client, factors):
    """The list page and the export cost a constant number of queries however many cases
    and factors there are (none more when the linked cases are all on the page)."""
    many = [
        TermFactory(vocabulary=Vocabulary.CONTRIBUTING, slug=f"factor-{n}", question_en=f"Q{n}?")
        for n in range(12)
    ]

    def add(count, start):
        for n in range(start, start + count):
            case = CaseFactory(public_id=f"IL-{n:04d}", with_terms=many[n % 12 : n % 12 + 3])
            CaseStepFactory(case=case, kind=CaseStep.Kind.ACTION_ITEM)
        refresh_search_text(Case.objects.all())
        public_content_changed()

    def cost(url):
        client.get(url)
        cache.clear()
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured.captured_queries)

    urls = ("/en/cases/", "/en/cases/?page=2", "/en/check.md", "/en/check.md?q=case")
    add(25, 1)
    few = {url: cost(url) for url in urls}
    add(80, 100)
    assert {url: cost(url) for url in urls} == few


def test_a_changed_follow_up_of_a_linked_case_renews_the_cached_list(client, checked):
    from cases.catalogue.changes import states_before

    # The first page holds 20 newer cases: the linked ones are not on it, yet its section
    # shows them.
    for n in range(25):
        CaseFactory(public_id=f"IL-{n + 500:04d}")
    url = "/en/cases/"
    assert "Added a timeout to every request." in client.get(url).content.decode()
    assert client.get(url)["X-Cache"] == "hit"
    step = checked["a"].steps.get(kind=CaseStep.Kind.ACTION_ITEM)
    before = states_before([checked["a"].pk])
    step.text_en = "Set a deadline on each call."
    step.save()
    public_content_changed(before)
    response = client.get(url)
    # Its section made again (cases.catalogue.list_blocks), the rest of the list kept.
    assert response["X-Cache"] == "mended"
    assert "Set a deadline on each call." in response.content.decode()
    cache.clear()
    assert client.get(url).content == response.content


def test_a_question_a_reviewer_writes_in_the_admin_shows_at_once(client, checked, factors):
    from django.urls import reverse

    from tests.admin_forms import change_form_data
    from tests.factories import UserFactory

    assert "내 시스템에도 “장애 중첩” 문제가" in section(client.get("/ko/cases/"))
    reviewer = UserFactory(role="reviewer")
    client.force_login(reviewer)
    url = reverse("admin:cases_term_change", args=[factors["overlap"].pk])
    form = client.get(url)
    assert 'name="question_en"' in form.content.decode()
    assert 'name="question_ko"' in form.content.decode()
    data = change_form_data(form, question_ko="두 장애가 겹쳐도 대응할 수 있습니까?")
    assert client.post(url, data).status_code == 302
    client.logout()
    assert "두 장애가 겹쳐도 대응할 수 있습니까?" in section(client.get("/ko/cases/"))


def test_a_newly_published_case_reaches_the_cached_export(client, checked, factors):
    from django.utils.timezone import now

    from cases.catalogue.changes import states_before

    assert "IL-0107" not in client.get("/en/check.md?component=dns").content.decode()
    assert client.get("/en/check.md?component=dns")["X-Cache"] == "hit"
    draft = CaseFactory(
        public_id="IL-0107",
        status=Case.Status.DRAFT,
        published_at=None,
        with_terms=[factors["dns"], factors["monitoring"]],
    )
    before = states_before([draft.pk])
    Case.objects.filter(pk=draft.pk).update(status=Case.Status.PUBLISHED, published_at=now())
    public_content_changed(before)
    text = client.get("/en/check.md?component=dns").content.decode()
    assert "IL-0107" in text
    assert "Contributing factor: Monitoring gap, in 2 cases." in text
