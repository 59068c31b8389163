"""The facet index follows the cases a change changed, instead of being built again: the
index it follows into is the one a build would give, whatever the changes."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.caching import public_content_changed, public_version
from cases.catalogue.change_log import changes_between
from cases.catalogue.changes import states_before
from cases.catalogue.facet_index import build, current_facet_index, forget
from cases.editorial import drafts
from cases.editorial import transitions as workflow
from cases.models import Case, Vocabulary
from tests.factories import CaseFactory, OrganisationFactory, TermFactory, UserFactory
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db


def index_state(index):
    """What an index tells readers: its cases, every value's cases, its terms and names."""
    return (
        index.public.keys(),
        {
            kind: {key: index.cases_with(kind, [key]).keys() for key in keys}
            for kind, keys in index.counts(index.public).items()
        },
        [term.pk for term in index.terms],
        sorted(index._organisations),
    )


def built_afresh_in(queries):
    return any("MATERIALIZED" in q["sql"] or "group_concat" in q["sql"] for q in queries)


@pytest.fixture
def people():
    return UserFactory(role="editor"), UserFactory(role="reviewer")


def test_an_approved_edit_is_followed_without_building_the_index_again(people):
    editor, reviewer = people
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns")
    disk = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="disk")
    case = CaseFactory(severity="low", with_terms=[dns])
    CaseFactory(with_terms=[dns])
    before = current_facet_index("default")
    approve_edit(case, editor, reviewer, terms=[disk], severity="high", summary_en="Corrected.")
    with CaptureQueriesContext(connection) as queries:
        index = current_facet_index("default")
    # The finding: each change made every process build its whole index from scratch.
    assert not built_afresh_in(queries)
    assert index.version == public_version() > before.version
    assert index_state(index) == index_state(build("default", public_version()))
    assert index.cases_with_term(disk).keys() == [case.pk]
    assert index.cases_with("severity", ["high"]).keys() == [case.pk]


def test_a_change_of_everything_builds_the_index_again():
    CaseFactory()
    current_facet_index("default")
    public_content_changed()  # as relabelling a term does: no cases named
    with CaptureQueriesContext(connection) as queries:
        current_facet_index("default")
    assert built_afresh_in(queries)


def test_what_versions_changed_is_read_once_and_unknown_past_the_log(people):
    editor, reviewer = people
    a, b = CaseFactory(), CaseFactory()
    start = public_version()
    approve_edit(a, editor, reviewer, summary_en="Text only.")
    approve_edit(b, editor, reviewer, severity="critical")
    changes = changes_between("default", start, public_version())
    assert {a.pk, b.pk} <= changes.cases
    assert b.pk in changes.listed and a.pk not in changes.listed  # text is not listed
    public_content_changed()
    assert changes_between("default", start, public_version()) is None
    assert changes_between("default", start - 1000, start) is None


# Operations on a small library, drawn by Hypothesis: after any sequence the index the
# process followed into equals one built afresh.
OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["edit terms", "edit org", "edit date", "withdraw", "reopen", "delete"]),
        st.integers(0, 5),
        st.integers(0, 3),
    ),
    min_size=1,
    max_size=6,
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(operations=OPERATIONS)
def test_the_followed_index_is_the_built_one_after_any_changes(people, operations):
    editor, reviewer = people
    terms = [TermFactory(vocabulary=Vocabulary.COMPONENT) for _ in range(4)]
    orgs = [OrganisationFactory() for _ in range(4)]
    cases = [CaseFactory(org=orgs[n % 4], with_terms=terms[: n % 4 + 1]) for n in range(6)]
    forget()  # factories write past the workflow, without a version
    current_facet_index("default")
    for operation, n, choice in operations:
        case = Case.objects.filter(pk=cases[n].pk).first()
        if case is None:
            continue
        published = case.status == Case.Status.PUBLISHED
        if operation == "edit terms" and published:
            approve_edit(case, editor, reviewer, terms=terms[choice:])
        elif operation == "edit org" and published:
            approve_edit(case, editor, reviewer, org=orgs[choice])
        elif operation == "edit date" and published:
            approve_edit(case, editor, reviewer, date=case.date.replace(year=2000 + choice))
        elif operation == "withdraw" and published:
            workflow.case_withdraw(case=case, user=reviewer, note="Retracted.")
        elif operation == "reopen" and case.status == Case.Status.WITHDRAWN:
            workflow.case_reopen(case=case, user=reviewer)
        elif operation == "delete":
            drafts.case_delete(case=case, user=UserFactory(is_superuser=True))
        index = current_facet_index("default")
        assert index_state(index) == index_state(build("default", public_version()))


def test_a_large_change_is_recorded_as_one_of_everything(monkeypatch):
    monkeypatch.setattr("cases.catalogue.changes.MOST_CASES", 2)
    cases = [CaseFactory() for _ in range(3)]
    assert states_before([c.pk for c in cases]) is None
