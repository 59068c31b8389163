"""The rules of suggested cases: addresses compared, matches found, and each triage step
(accept into a draft the importer would take, reject with a reason, mark as a duplicate)
atomic, state-checked and recorded."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given, settings
from hypothesis import strategies as st

from cases.contributions import suggestions as rules
from cases.contributions.suggestion_matches import EXACT, NEAR, address_key, find_matches
from cases.editorial.drafts import CaseInvalid
from cases.editorial.rights import WorkflowError
from cases.exchange.serialize import case_to_exchange
from cases.exchange.validation import validate_case
from cases.models import Case, CaseVersion, Organisation, Suggestion
from tests.factories import CaseFactory, OrganisationFactory, SourceFactory, UserFactory

Status = Suggestion.Status
URL = "https://status.example-cloud.com/incidents/2025-03-01-queue-backlog"

# --- comparing addresses ----------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling",
    [
        URL,
        "http://status.example-cloud.com/incidents/2025-03-01-queue-backlog",
        "HTTPS://Status.Example-Cloud.COM/incidents/2025-03-01-queue-backlog/",
        "https://www.status.example-cloud.com/incidents/2025-03-01-queue-backlog",
        "https://status.example-cloud.com:443/incidents/2025-03-01-queue-backlog#timeline",
        "https://status.example-cloud.com/incidents/2025-03-01-queue-backlog?utm_source=x"
        "&utm_medium=mail&fbclid=abc&gclid=def",
        "  https://status.example-cloud.com/incidents/2025-03-01-queue-backlog//  ",
    ],
)
def test_spellings_of_one_page_have_one_key(spelling):
    assert address_key(spelling) == "status.example-cloud.com/incidents/2025-03-01-queue-backlog"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (URL, "https://status.example-cloud.com/incidents/2025-03-01-queue-backlog-2"),
        (URL, "https://status.example-cloud.com:8443/incidents/2025-03-01-queue-backlog"),
        ("https://blog.example.org/p?id=1", "https://blog.example.org/p?id=2"),
        (URL, "https://other.example-cloud.com/incidents/2025-03-01-queue-backlog"),
    ],
)
def test_other_pages_have_other_keys(one, other):
    assert address_key(one) != address_key(other)


def test_parameters_are_compared_in_any_order():
    assert address_key("https://a.example/p?b=2&a=1") == address_key("https://a.example/p?a=1&b=2")


QUICK = settings(deadline=None, database=None)


@QUICK
@given(st.text(max_size=200))
def test_any_text_has_a_key_without_an_error(text):
    assert isinstance(address_key(text), str)


def test_a_key_is_never_longer_than_an_address_may_be():
    # Each space and Hangul syllable of the query is written again percent-encoded.
    url = "https://example.org/p?q=" + "장 애" * 320
    assert len(url) <= 1000
    assert len(address_key(url)) == 1000


@QUICK
@given(
    st.sampled_from(["http", "https", "HTTPS"]),
    st.sampled_from(["", "www.", "WWW."]),
    st.from_regex(r"[a-z]{1,10}(/[a-z0-9-]{1,10}){0,3}", fullmatch=True),
    st.sampled_from(["", "/", "#x", "?utm_campaign=y", "/?fbclid=1#top"]),
)
def test_decorations_never_change_the_key(scheme, www, rest, decoration):
    plain = address_key(f"https://example.org/{rest}")
    assert address_key(f"{scheme}://{www}example.org/{rest}{decoration}") == plain


# --- finding what the library has -------------------------------------------------------

pytestmark_db = pytest.mark.django_db


@pytestmark_db
def test_a_case_citing_the_page_among_its_sources_is_an_exact_match():
    case = CaseFactory(public_id="IL-0100")
    SourceFactory(case=case, url=URL + "/")
    CaseFactory(public_id="IL-0101")  # cites nothing like it
    [match] = find_matches("http://www.status.example-cloud.com/incidents/2025-03-01-queue-backlog")
    assert (match.kind, match.case, match.url) == (EXACT, case, URL + "/")


@pytestmark_db
def test_a_case_s_canonical_address_counts_too():
    case = CaseFactory(source_url=URL)
    assert [(m.kind, m.case) for m in find_matches(URL)] == [(EXACT, case)]


@pytestmark_db
def test_near_matches_are_told_apart_from_exact_ones():
    moved = CaseFactory(public_id="IL-0200")
    SourceFactory(
        case=moved, url="https://status.example-cloud.com/archive/2025-03-01-queue-backlog.html"
    )
    capitals = CaseFactory(public_id="IL-0201")
    SourceFactory(
        case=capitals,
        url="https://status.example-cloud.com/Incidents/2025-03-01-Queue-Backlog?page=2",
    )
    exact = CaseFactory(public_id="IL-0202")
    SourceFactory(case=exact, url=URL)
    unlike = CaseFactory(public_id="IL-0203")
    SourceFactory(case=unlike, url="https://status.example-cloud.com/incidents/2025-04-09-dns")
    short = CaseFactory(public_id="IL-0204")  # the same last segment, but too short to tell
    SourceFactory(case=short, url="https://status.example-cloud.com/a/index")
    matches = find_matches(URL)
    assert [(m.kind, m.case.public_id) for m in matches] == [
        (EXACT, "IL-0202"),
        (NEAR, "IL-0200"),
        (NEAR, "IL-0201"),
    ]
    assert find_matches("https://status.example-cloud.com/b/index") == []


@pytestmark_db
def test_a_case_is_listed_once_at_its_best_match():
    case = CaseFactory()
    SourceFactory(
        case=case,
        url=URL.upper().replace(
            "HTTPS://STATUS.EXAMPLE-CLOUD.COM", "https://status.example-cloud.com"
        ),
    )
    SourceFactory(case=case, url=URL)
    assert [(m.kind, m.case) for m in find_matches(URL)] == [(EXACT, case)]


@pytestmark_db
def test_a_pending_revision_s_copy_is_not_listed_apart():
    case = CaseFactory(public_id="IL-0300")
    SourceFactory(case=case, url=URL)
    copy = CaseFactory(public_id="IL-0300", draft_of=case, status=Case.Status.DRAFT)
    SourceFactory(case=copy, url=URL)
    assert [m.case for m in find_matches(URL)] == [case]


@pytestmark_db
def test_earlier_suggestions_of_the_page_are_found_but_not_the_suggestion_itself():
    earlier = rules.suggestion_create(source_url=URL + "?utm_source=feed", language="en")
    this = rules.suggestion_create(source_url=URL, language="ko")
    matches = find_matches(URL, exclude_suggestion=this)
    assert [(m.kind, m.suggestion) for m in matches] == [(EXACT, earlier)]


@pytestmark_db
def test_matching_takes_a_fixed_number_of_queries(django_assert_max_num_queries):
    for n in range(30):
        SourceFactory(url=f"https://status.example-cloud.com/incidents/other-{n}")
        rules.suggestion_create(source_url=f"{URL}-{n}", language="en")
    with django_assert_max_num_queries(3):
        find_matches(URL)


@pytestmark_db
def test_no_address_has_no_matches():
    assert find_matches("mailto:someone@example.org") == []


# --- storing ----------------------------------------------------------------------------


@pytestmark_db
def test_a_suggestion_is_checked_by_the_model_s_own_rules():
    with pytest.raises(ValidationError) as refused:
        rules.suggestion_create(source_url="javascript:alert(1)", language="en", email="no")
    assert set(refused.value.message_dict) == {"source_url", "email"}
    assert not Suggestion.objects.exists()


# --- triage -------------------------------------------------------------------------------


@pytest.fixture
def suggestion(db):
    return rules.suggestion_create(
        source_url=URL,
        organisation="example cloud",
        date=datetime.date(2025, 3, 1),
        note="Thorough postmortem.",
        email="reader@example.net",
        language="en",
    )


@pytest.mark.django_db
def test_the_organisation_named_is_suggested_whatever_its_case(suggestion):
    OrganisationFactory(name="Example Network", slug="example-network")
    org = OrganisationFactory(name="Example Cloud", slug="example-cloud")
    assert rules.suggested_organisation(suggestion) == org


@pytest.mark.django_db
def test_an_organisation_whose_slug_the_name_makes_is_suggested(suggestion):
    org = OrganisationFactory(name="ExampleCloud Inc.", slug="example-cloud")
    assert rules.suggested_organisation(suggestion) == org


@pytest.mark.django_db
def test_accepting_creates_a_draft_the_importer_would_take(suggestion, editor):
    org = OrganisationFactory(name="Example Cloud", slug="example-cloud")
    CaseFactory(public_id="IL-0041")
    accepted = rules.suggestion_accept(
        suggestion=suggestion,
        user=editor,
        org=org,
        title_en="Queue backlog delays deploys",
        date=datetime.date(2025, 3, 1),
    )
    draft = accepted.draft
    assert accepted.status == Status.ACCEPTED
    assert (accepted.handled_by, accepted.handled_at is not None) == (editor, True)
    assert draft.public_id == "IL-0042"  # the next id, as the case form proposes
    assert draft.status == Case.Status.DRAFT and draft.created_by == editor
    assert draft.org == org
    assert [source.url for source in draft.sources.all()] == [URL]
    normal, problems = validate_case(case_to_exchange(Case.objects.for_exchange().get(pk=draft.pk)))
    assert problems == []
    assert normal["sources"][0]["url"] == URL
    version = CaseVersion.objects.get(case=draft)
    assert version.event == CaseVersion.Event.CREATED
    assert version.reason == f"created from suggestion #{suggestion.pk}"
    assert version.saved_by == editor


@pytest.mark.django_db
def test_accepting_may_name_a_new_organisation(suggestion, editor):
    accepted = rules.suggestion_accept(
        suggestion=suggestion,
        user=editor,
        new_org_name="Example Cloud",
        title_ko="큐 적체",
        date="2025-03-01",
    )
    assert accepted.draft.org.slug == "example-cloud"
    assert accepted.draft.title_ko == "큐 적체"


@pytest.mark.django_db
def test_a_new_organisation_that_exists_is_refused(suggestion, editor):
    OrganisationFactory(name="Example Cloud", slug="example-cloud")
    with pytest.raises(CaseInvalid) as refused:
        rules.suggestion_accept(
            suggestion=suggestion,
            user=editor,
            new_org_name="EXAMPLE CLOUD",
            title_en="T",
            date="2025-03-01",
        )
    assert [p.path for p in refused.value.problems] == ["org"]
    assert Organisation.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "paths"),
    [
        ({"title_en": ""}, ["title"]),
        ({"date": "2999-01-01"}, ["date"]),
        ({"date": None}, ["date"]),
        ({"new_org_name": "한국 클라우드"}, ["org_slug"]),
    ],
)
def test_a_draft_the_validator_refuses_is_not_created(suggestion, editor, changes, paths):
    given = {"new_org_name": "Example Cloud", "title_en": "T", "date": "2025-03-01", **changes}
    with pytest.raises(CaseInvalid) as refused:
        rules.suggestion_accept(suggestion=suggestion, user=editor, **given)
    assert [p.path for p in refused.value.problems] == paths
    suggestion.refresh_from_db()
    assert suggestion.status == Status.NEW and suggestion.draft is None
    assert not Case.objects.exists() and not Organisation.objects.exists()


@pytest.mark.django_db
def test_rejecting_needs_a_reason_and_records_it(suggestion, editor):
    with pytest.raises(WorkflowError, match="Say why"):
        rules.suggestion_reject(suggestion=suggestion, user=editor, reason="  ")
    rejected = rules.suggestion_reject(
        suggestion=suggestion, user=editor, reason="Not an incident."
    )
    rejected.refresh_from_db()
    assert (rejected.status, rejected.reason, rejected.handled_by) == (
        Status.REJECTED,
        "Not an incident.",
        editor,
    )


@pytest.mark.django_db
def test_a_duplicate_names_its_case_a_revision_s_copy_counting_as_its_case(suggestion, editor):
    with pytest.raises(WorkflowError, match="Name the case"):
        rules.suggestion_mark_duplicate(suggestion=suggestion, user=editor, case=None)
    case = CaseFactory(public_id="IL-0007")
    copy = CaseFactory(public_id="IL-0007", draft_of=case, status=Case.Status.DRAFT)
    marked = rules.suggestion_mark_duplicate(suggestion=suggestion, user=editor, case=copy)
    marked.refresh_from_db()
    assert (marked.status, marked.duplicate_of) == (Status.DUPLICATE, case)


@pytest.mark.django_db
@pytest.mark.parametrize("first", ["accept", "reject", "duplicate"])
def test_a_handled_suggestion_cannot_be_handled_again(suggestion, editor, reviewer, first):
    steps = {
        "accept": lambda user: rules.suggestion_accept(
            suggestion=suggestion,
            user=user,
            new_org_name=f"Org {user.pk}",
            title_en="T",
            date="2025-03-01",
        ),
        "reject": lambda user: rules.suggestion_reject(
            suggestion=suggestion, user=user, reason="No."
        ),
        "duplicate": lambda user: rules.suggestion_mark_duplicate(
            suggestion=suggestion, user=user, case=CaseFactory()
        ),
    }
    steps[first](editor)
    before = Suggestion.objects.values().get(pk=suggestion.pk)
    for step in steps.values():
        with pytest.raises(WorkflowError, match="already handled .* by eddie on"):
            step(reviewer)
    assert Suggestion.objects.values().get(pk=suggestion.pk) == before
    assert Case.objects.filter(created_by=reviewer).count() == 0


@pytest.mark.django_db
def test_only_a_triager_may_handle_a_suggestion(suggestion):
    outsider = UserFactory(username="visitor")  # staff, in no group
    for step in (
        lambda: rules.suggestion_reject(suggestion=suggestion, user=outsider, reason="No."),
        lambda: rules.suggestion_mark_duplicate(
            suggestion=suggestion, user=outsider, case=CaseFactory()
        ),
        lambda: rules.suggestion_accept(
            suggestion=suggestion, user=outsider, new_org_name="X", title_en="T", date="2025-03-01"
        ),
    ):
        with pytest.raises(WorkflowError, match="right to triage"):
            step()
    suggestion.refresh_from_db()
    assert suggestion.status == Status.NEW


@pytest.mark.django_db
def test_editors_and_reviewers_may_triage(editor, reviewer):
    assert rules.may_triage(editor) and rules.may_triage(reviewer)


@pytest.mark.django_db
def test_the_database_refuses_a_rejection_without_a_reason(suggestion):
    from django.db import IntegrityError, transaction
    from django.utils import timezone

    with pytest.raises(IntegrityError), transaction.atomic():
        Suggestion.objects.filter(pk=suggestion.pk).update(
            status=Status.REJECTED, reason="", handled_at=timezone.now()
        )


@pytest.mark.django_db(transaction=True)
def test_the_migration_lets_editors_and_reviewers_triage_and_takes_it_back():
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from cases.editorial.roles import ensure_groups

    ensure_groups()  # a flushed database lost the groups 0005 made

    def triage_rights():
        return {
            group.name: sorted(
                group.permissions.filter(codename__endswith="_suggestion").values_list(
                    "codename", flat=True
                )
            )
            for group in Group.objects.filter(name__in=["Editors", "Reviewers"])
        }

    both = ["change_suggestion", "view_suggestion"]
    assert triage_rights() == {"Editors": both, "Reviewers": both}
    call_command("migrate", "cases", "0031", verbosity=0)
    assert triage_rights() == {"Editors": [], "Reviewers": []}
    call_command("migrate", "cases", verbosity=0)
    assert triage_rights() == {"Editors": both, "Reviewers": both}
