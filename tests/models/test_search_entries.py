"""Each case's search entry is kept equal to the case by the database itself (migration
0028): however the case is written, its entry is the projection of the case below."""

import datetime
import io
import itertools
import json

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.editorial import transitions as workflow
from cases.models import Case, SearchEntry, Vocabulary
from cases.search.text import refresh_search_text
from tests.conftest import REPO
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db
Status = Case.Status

# The case's columns an entry copies as they are (title_words is made of two titles).
COPIED = ["org_id", "root_cause_id", "date", "status", "public_id", "search_text"]
ENTRY_FIELDS = ["case_id", *COPIED, "title_words"]


def projection(pk):
    """What the entry of case `pk` must hold, computed from the case as stored."""
    row = Case.objects.filter(pk=pk).values("pk", *COPIED, "title_en", "title_ko").get()
    titles = f"{row.pop('title_en') or ''} {row.pop('title_ko') or ''}".lower()
    return {"case_id": row.pop("pk"), **row, "title_words": titles}


def entry(pk):
    return SearchEntry.objects.filter(case_id=pk).values(*ENTRY_FIELDS).first()


def assert_mirrored(*pks):
    for pk in pks:
        assert entry(pk) == projection(pk)


def assert_every_case_mirrored():
    cases = Case.objects.values_list("pk", flat=True)
    assert SearchEntry.objects.count() == cases.count()
    assert_mirrored(*cases)


def mark_entry(pk):
    """Write a marker straight into the entry: gone again only if a trigger rewrites it."""
    SearchEntry.objects.filter(case_id=pk).update(search_text="marker")


def entry_marked(pk):
    return SearchEntry.objects.get(case_id=pk).search_text == "marker"


@pytest.fixture
def case():
    return CaseFactory(
        title_en="Replica LAG on Primary",
        title_ko="복제 지연",
        search_text="replica lag primary 복제 지연",
        root_cause=TermFactory(vocabulary=Vocabulary.ROOT_CAUSE, slug="overload"),
    )


def test_an_entry_is_written_with_the_case(case):
    assert entry(case.pk) == {
        "case_id": case.pk,
        "org_id": case.org_id,
        "root_cause_id": case.root_cause_id,
        "date": case.date,
        "status": Status.PUBLISHED,
        "public_id": case.public_id,
        "search_text": "replica lag primary 복제 지연",
        "title_words": "replica lag on primary 복제 지연",
    }


MIRRORED = ["org", "root_cause", "date", "status", "public_id", "title_en", "title_ko"]
MIRRORED += ["search_text"]


def new_values():
    return {
        "org": OrganisationFactory(slug="another-org"),
        "root_cause": None,
        "date": datetime.date(2011, 3, 11),
        "status": Status.WITHDRAWN,
        "public_id": "IL-98765",
        "title_en": "Disk FULL",
        "title_ko": None,
        "search_text": "disk full 디스크",
    }


@pytest.mark.parametrize("field", MIRRORED)
def test_a_save_of_each_mirrored_field_reaches_the_entry(case, field):
    before = entry(case.pk)
    setattr(case, field, new_values()[field])
    case.save()
    assert entry(case.pk) != before
    assert_mirrored(case.pk)


def test_bulk_update_and_queryset_update_reach_the_entries(case):
    other = CaseFactory(title_en="Other", title_ko="다른")
    case.title_en, other.status = "Bulk written", Status.DRAFT
    Case.objects.bulk_update([case, other], ["title_en", "status"])
    assert_mirrored(case.pk, other.pk)
    assert entry(case.pk)["title_words"] == "bulk written 복제 지연"

    Case.objects.filter(pk__in=[case.pk, other.pk]).update(
        date=datetime.date(2020, 2, 2), title_ko="갱신"
    )
    assert_mirrored(case.pk, other.pk)
    assert entry(other.pk)["date"] == datetime.date(2020, 2, 2)


def test_refreshed_search_texts_reach_the_entries(case):
    Case.objects.filter(pk=case.pk).update(search_text="stale")
    refresh_search_text(Case.objects.filter(pk=case.pk))
    assert entry(case.pk)["search_text"] not in ("stale", "replica lag primary 복제 지연")
    assert_mirrored(case.pk)


def test_status_changes_through_the_workflow_reach_the_entry(editor, reviewer):
    draft = CaseFactory(status=Status.DRAFT, published_at=None, created_by=editor)
    assert entry(draft.pk)["status"] == Status.DRAFT
    workflow.case_submit(case=draft, user=editor)
    assert entry(draft.pk)["status"] == Status.IN_REVIEW
    workflow.case_approve(case=draft, user=reviewer)
    assert entry(draft.pk)["status"] == Status.PUBLISHED
    workflow.case_withdraw(case=draft, user=reviewer, note="Duplicate.")
    assert entry(draft.pk)["status"] == Status.WITHDRAWN
    assert_mirrored(draft.pk)


def test_an_unrelated_update_leaves_the_entry_alone(case):
    mark_entry(case.pk)
    case.summary_en, case.severity = "A new summary.", Case.Severity.HIGH
    case.save()
    Case.objects.filter(pk=case.pk).update(lessons_en="Learned.", edit_version=7)
    assert entry_marked(case.pk)


def test_a_mirrored_column_written_unchanged_leaves_the_entry_alone(case):
    mark_entry(case.pk)
    case.save()  # every column written, none changed
    Case.objects.filter(pk=case.pk).update(status=Status.PUBLISHED, title_ko="복제 지연")
    assert entry_marked(case.pk)
    Case.objects.filter(pk=case.pk).update(title_ko="지연")
    assert not entry_marked(case.pk)
    assert_mirrored(case.pk)


def test_an_entry_goes_with_its_case(case):
    others = [CaseFactory(), CaseFactory()]
    case.delete()
    assert entry(case.pk) is None
    Case.objects.filter(pk=others[0].pk).delete()
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM cases_case WHERE id = %s", [others[1].pk])
    assert not SearchEntry.objects.exists()


def test_a_raw_insert_gets_an_entry(case):
    with connection.cursor() as cursor:
        cursor.execute("UPDATE cases_case SET title_en = 'Raw' WHERE id = %s", [case.pk])
    assert entry(case.pk)["title_words"] == "raw 복제 지연"


def test_imported_cases_get_their_entries_and_keep_them_on_reimport(seed_case, write_json):
    second = dict(seed_case, id="IL-0001", related=[], recurrence_of=None)
    path = write_json("cases.json", [seed_case, second])
    call_command("import_cases", str(path), stdout=io.StringIO())
    assert Case.objects.count() == 2
    assert_every_case_mirrored()

    second["title"] = {"en": "Renamed by the IMPORT", "ko": "다시 가져옴"}
    second["date"] = "2019-05-05"
    write_json("cases.json", [seed_case, second])
    call_command("import_cases", str(path), stdout=io.StringIO())
    assert_every_case_mirrored()
    renamed = SearchEntry.objects.get(public_id="IL-0001")
    assert renamed.title_words == "renamed by the import 다시 가져옴"
    assert renamed.date == datetime.date(2019, 5, 5)


def test_every_bundled_case_has_exactly_one_entry():
    call_command("load_taxonomy", str(REPO / "data" / "taxonomy.json"), stdout=io.StringIO())
    call_command("import_cases", str(REPO / "data" / "cases"), stdout=io.StringIO())
    assert Case.objects.count() >= 15
    assert_every_case_mirrored()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's generated columns")
def test_the_entry_vector_and_titles_are_the_cases_own(case):
    CaseFactory(title_en=None, title_ko="제목만", search_text="only korean 제목만")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM cases_case c JOIN cases_searchentry e ON e.case_id = c.id "
            "WHERE e.search_vector = c.search_text::tsvector AND e.title_words = "
            "lower(coalesce(c.title_en, '') || ' ' || coalesce(c.title_ko, ''))"
        )
        assert cursor.fetchone()[0] == Case.objects.count() == 2
        cursor.execute(
            "SELECT array_agg(case_id) FROM cases_searchentry "
            "WHERE search_vector @@ '''repl'':* & ''지연'':*'"
        )
        assert cursor.fetchone()[0] == [case.pk]


# --- any sequence of writes ------------------------------------------------------------

# Letters whose lower case Python, PostgreSQL and SQLite agree on (SQLite lowers ASCII
# only; Hangul has no case), and words a tsvector reads as they are.
TITLE = st.text(alphabet="aBcDeF XyZ 가나다", max_size=20)
WORDS = st.lists(st.text(alphabet="abcxyz019가나", min_size=1, max_size=8), max_size=6).map(
    " ".join
)
IDS = itertools.count(50000)
WRITES = st.sampled_from(["save", "update", "bulk_update", "raw"])


@st.composite
def changes(draw, orgs, causes):
    field = draw(st.sampled_from(MIRRORED))
    value = draw(
        {
            "org": st.sampled_from(orgs),
            "root_cause": st.sampled_from([None, *causes]),
            "date": st.dates(datetime.date(1990, 1, 1), datetime.date(2030, 12, 31)),
            "status": st.sampled_from(Status.values),
            "public_id": st.builds(lambda: f"IL-{next(IDS)}"),
            "title_en": st.none() | TITLE,
            "title_ko": st.none() | TITLE,
            "search_text": WORDS,
        }[field]
    )
    return field, value


def write(case, field, value, how):
    setattr(case, field, value)
    if how == "save":
        case.save(update_fields=[field])
    elif how == "update":
        Case.objects.filter(pk=case.pk).update(**{field: value})
    elif how == "bulk_update":
        Case.objects.bulk_update([case], [field])
    else:
        column = Case._meta.get_field(field).column
        stored = getattr(case, column)
        with connection.cursor() as cursor:
            cursor.execute(f"UPDATE cases_case SET {column} = %s WHERE id = %s", [stored, case.pk])


@given(data=st.data())
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_sequence_of_writes_keeps_the_entry_equal_to_the_case(data):
    orgs = [OrganisationFactory(slug=f"org-{n}") for n in range(3)]
    causes = [TermFactory(vocabulary=Vocabulary.ROOT_CAUSE, slug=f"cause-{n}") for n in range(2)]
    case = CaseFactory(public_id=f"IL-{next(IDS)}", org=orgs[0], published_at=timezone.now())
    for field, value in data.draw(st.lists(changes(orgs, causes), max_size=8), label="writes"):
        write(case, field, value, data.draw(WRITES, label="how"))
        assert_mirrored(case.pk)


# --- the migration ---------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_table_and_goes_back():
    cases = [CaseFactory(title_ko=None), CaseFactory(status=Status.DRAFT, published_at=None)]
    call_command("migrate", "cases", "0027", verbosity=0)
    try:
        Case.objects.filter(pk=cases[0].pk).update(title_en="Written without triggers")
        assert "cases_searchentry" not in connection.introspection.table_names()
    finally:
        call_command("migrate", "cases", verbosity=0)
    assert_every_case_mirrored()
    assert entry(cases[0].pk)["title_words"] == "written without triggers "
    assert json.dumps(entry(cases[1].pk)["status"]) == '"draft"'
