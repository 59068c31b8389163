import io
import json
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from cases.models import Case, CaseRelation, Term, Vocabulary
from cases.search.text import refresh_search_text
from tests.conftest import REPO
from tests.factories import CaseFactory

pytestmark = pytest.mark.django_db


def run_import(*args):
    """Run import_cases; return (stdout, stderr, error message or None)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        call_command("import_cases", *[str(a) for a in args], stdout=stdout, stderr=stderr)
    except CommandError as error:
        return stdout.getvalue(), stderr.getvalue(), str(error)
    return stdout.getvalue(), stderr.getvalue(), None


def another_case(seed_case, case_id, **changes):
    case = dict(seed_case, id=case_id, related=[], recurrence_of=None)
    case.update(changes)
    return case


def snapshot():
    """Everything an import could touch, to show a failed run wrote nothing."""
    return sorted(
        (c.public_id, c.title_en, c.summary_ko, c.modified.isoformat()) for c in Case.objects.all()
    ), Term.objects.count()


# --- input forms ----------------------------------------------------------------


def test_imports_one_object_file(seed_case, write_json):
    out, _err, error = run_import(write_json("IL-0585.json", seed_case))
    assert error is None
    assert "created 1, updated 0, unchanged 0, skipped 0" in out
    case = Case.objects.get(public_id="IL-0585")
    assert case.org.name == "Microsoft" and case.org.slug == "microsoft"
    assert case.status == Case.Status.PUBLISHED and case.published_at is not None
    assert [t.slug for t in case.terms_of(Vocabulary.SYMPTOM)] == [
        "training-job-failed",
        "storage-disconnected",
    ]
    assert case.root_cause.slug == "dependency-failure"
    assert case.sources.get().archived.startswith("https://web.archive.org/")


def test_imports_an_array_json_lines_and_a_folder(seed_case, write_json, tmp_path):
    write_json("a.json", [another_case(seed_case, "IL-0001"), another_case(seed_case, "IL-0002")])
    (tmp_path / "nested").mkdir()
    lines = "\n".join(
        json.dumps(another_case(seed_case, f"IL-000{n}"), ensure_ascii=False) for n in (3, 4)
    )
    write_json("nested/b.jsonl", lines + "\n\n")
    write_json("notes.txt", "not a case file, ignored")
    out, err, error = run_import(tmp_path)
    assert error is None, err
    assert "created 4" in out
    assert set(Case.objects.values_list("public_id", flat=True)) == {
        "IL-0001",
        "IL-0002",
        "IL-0003",
        "IL-0004",
    }


def test_imports_from_standard_input(seed_case, monkeypatch):
    data = json.dumps(seed_case, ensure_ascii=False).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    out, err, error = run_import("-")
    assert error is None, err
    assert Case.objects.filter(public_id="IL-0585").exists()


def test_standard_input_may_be_json_lines(seed_case, monkeypatch):
    lines = "\n".join(json.dumps(another_case(seed_case, f"IL-100{n}")) for n in range(3))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lines.encode())))
    out, err, error = run_import("-")
    assert error is None, err
    assert Case.objects.count() == 3


def test_accepts_a_byte_order_mark(seed_case, write_json):
    path = write_json("bom.json", b"\xef\xbb\xbf" + json.dumps(seed_case).encode())
    assert run_import(path)[2] is None
    assert Case.objects.count() == 1


def test_plain_string_impact_and_steps_are_english(seed_case, write_json):
    seed_case["remediation"] = ["Restarted the name node.", {"en": "Retried.", "ko": "재시도했다."}]
    assert run_import(write_json("c.json", seed_case))[2] is None
    case = Case.objects.get()
    assert case.impact_users_en == "85 users" and case.impact_users_ko == ""
    assert [(s.text_en, s.text_ko) for s in case.steps.all()] == [
        ("Restarted the name node.", ""),
        ("Retried.", "재시도했다."),
    ]


def test_unknown_term_is_created_with_a_label_from_its_slug(seed_case, write_json):
    seed_case["components"] = ["gpu-interconnect"]
    assert run_import(write_json("c.json", seed_case))[2] is None
    term = Term.objects.get(vocabulary=Vocabulary.COMPONENT, slug="gpu-interconnect")
    assert term.label_en == "Gpu interconnect"


def test_related_and_recurrence_link_cases_in_the_same_run(seed_case, write_json):
    first = another_case(seed_case, "IL-0001", related=["IL-0002", "IL-0003"])
    second = another_case(seed_case, "IL-0002", recurrence_of="IL-0001")
    third = another_case(seed_case, "IL-0003")
    assert run_import(write_json("c.json", [first, second, third]))[2] is None
    one = Case.objects.get(public_id="IL-0001")
    assert [r.to_case.public_id for r in one.outgoing_relations.all()] == ["IL-0002", "IL-0003"]
    assert Case.objects.get(public_id="IL-0002").recurrence_of == one
    assert CaseRelation.objects.filter(to_case__public_id="IL-0003").count() == 1


def test_related_may_name_a_case_already_in_the_database(seed_case, write_json):
    CaseFactory(public_id="IL-0100")
    case = another_case(seed_case, "IL-0001", related=["IL-0100"])
    assert run_import(write_json("c.json", case))[2] is None
    assert Case.objects.get(public_id="IL-0100").related_from.get().public_id == "IL-0001"


def test_new_cases_get_their_own_keys_and_editorial_defaults(seed_case, write_json):
    before = CaseFactory(public_id="IL-0001")
    cases = [another_case(seed_case, f"IL-00{n:02}") for n in range(2, 6)]
    assert run_import(write_json("c.json", cases))[2] is None
    after = CaseFactory(public_id="IL-0099")  # the table's own key sequence moved past them
    imported = list(Case.objects.filter(public_id__in=[c["id"] for c in cases]))
    keys = [before.pk, after.pk] + [case.pk for case in imported]
    assert len(set(keys)) == 6 and after.pk > max(case.pk for case in imported)
    for case in imported:
        assert case.edit_version == 0 and case.draft_of is None
        assert case.created is not None and case.modified is not None
        assert case.title == case.title_en  # modeltranslation's own column: English
        assert case.translation_basis and not case.ko_stale


def test_a_word_too_long_to_index_is_left_out_of_the_search_text(client, seed_case, write_json):
    # PostgreSQL refuses a lexeme over 2,047 bytes; the import must not fail on one.
    monster = "가" * 3000
    seed_case["summary"]["ko"] += f" {monster}"
    assert run_import(write_json("c.json", seed_case))[2] is None
    case = Case.objects.get()
    assert monster in case.summary_ko and monster not in case.search_text
    assert "IL-0585" in client.get("/ko/cases/?q=체크포인트").content.decode()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's TOAST compression")
def test_long_texts_are_stored_compressed_with_lz4(seed_case, write_json):
    assert run_import(write_json("c.json", seed_case))[2] is None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_column_compression(summary_en), pg_column_compression(summary_ko), "
            "pg_column_compression(symptoms_text_ko) FROM cases_case"
        )
        methods = set(cursor.fetchone()) - {None}  # None: a text short enough to stay as is
    assert methods == {"lz4"}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's visibility map")
@pytest.mark.django_db(transaction=True)
def test_a_large_import_leaves_its_rows_ready_for_index_only_scans(
    seed_case, write_json, monkeypatch
):
    monkeypatch.setattr("cases.exchange.importer.ANALYZE_AFTER", 3)
    cases = [another_case(seed_case, f"IL-{n:04d}") for n in range(1, 4)]
    assert run_import(write_json("c.json", cases))[2] is None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, relpages, relallvisible FROM pg_class "
            "WHERE relname IN ('cases_case', 'cases_caseterm')"
        )
        tables = cursor.fetchall()
    assert len(tables) == 2
    # VACUUM has run: every page is marked all-visible, so no scan reads rows to check them.
    assert all(pages > 0 and visible == pages for _name, pages, visible in tables), tables


# --- bad input: a clear message each, and nothing written ----------------------


def bad(seed_case, **changes):
    case = dict(seed_case)
    case.update(changes)
    return case


BAD_CASES = {
    "unknown key": ({"colour": "red"}, "IL-0585: colour: unknown field"),
    "bad date": ({"date": "2019-13-45"}, "IL-0585: date: '2019-13-45' is not a real date"),
    "date in another form": ({"date": "08/08/2019"}, "IL-0585: date: '08/08/2019' is not a real"),
    "bad duration": (
        {"timeline": {"detected_after": "3 hours", "resolved_after": None}},
        "IL-0585: timeline.detected_after: '3 hours' is not an ISO 8601 duration",
    ),
    "bad slug": (
        {"components": ["Shared FS"]},
        "IL-0585: components[0]: 'Shared FS' is not a slug",
    ),
    "bad severity": (
        {"severity": "catastrophic"},
        "IL-0585: severity: 'catastrophic' is not one of unknown, low, medium, high, critical",
    ),
    "bad date kind": ({"date_kind": "happened"}, "IL-0585: date_kind: 'happened' is not one of"),
    "bad id": ({"id": "IL-58"}, "IL-58: id: 'IL-58' is not a case id"),
    "missing id": ({"id": None}, "c.json: item 2: id: is required"),
    "empty title": (
        {"title": {"en": "", "ko": ""}},
        "IL-0585: title: a title is required in at least one language",
    ),
    "list as string": (
        {"symptoms": "training-job-failed"},
        "IL-0585: symptoms: must be a list of slugs, got a string",
    ),
    "javascript source": (
        {"sources": [{"url": "javascript:alert(1)", "kind": "paper", "archived": None}]},
        "c.json: IL-0585: sources[0].url: only http and https links are allowed",
    ),
    "data url in docs": (
        {"docs": ["data:text/html,<script>alert(1)</script>"]},
        "IL-0585: docs[0]: only http and https links are allowed",
    ),
    "unknown language": ({"title": {"en": "x", "fr": "y"}}, "IL-0585: title.fr: unknown language"),
    "translated text as string": (
        {"summary": "plain"},
        'IL-0585: summary: must be an object {"en": ..., "ko": ...}, got a string',
    ),
    "unknown related id": (
        {"related": ["IL-9999"]},
        "IL-0585: related[0]: IL-9999 is neither in the database nor in this import",
    ),
    "related to itself": ({"related": ["IL-0585"]}, "IL-0585: related: a case cannot be related"),
    "reviewed_at without zone": (
        {"review": {"written_by": "x", "reviewed_at": "2024-01-01T10:00:00", "reviewed_by": "y"}},
        "IL-0585: review.reviewed_at: '2024-01-01T10:00:00' has no time zone",
    ),
    "nul byte": ({"org": "Micro\x00soft"}, "IL-0585: org: must not contain a NUL character"),
    "nested unknown key": (
        {"impact": {"scope": "x", "cost": "y"}},
        "IL-0585: impact.cost: unknown field",
    ),
}


@pytest.mark.parametrize("changes,message", BAD_CASES.values(), ids=BAD_CASES.keys())
def test_each_bad_field_is_named_and_nothing_is_written(seed_case, write_json, changes, message):
    CaseFactory(public_id="IL-0001", title_en="Untouched")
    before = snapshot()
    good = another_case(seed_case, "IL-0002")
    path = write_json("c.json", [good, bad(seed_case, **changes)])
    _out, err, error = run_import(path)
    assert error and error.startswith("Nothing was imported")
    assert message in err
    assert snapshot() == before


BAD_FILES = {
    "json syntax": (b'{"id": "IL-0001",\n  "org": }', "bad.json: line 2, column 10: invalid JSON"),
    "bad utf-8": (b'{"id": "IL-0001", "org": "\xff"}', "bad.json: not valid UTF-8 text (byte 0xff"),
    "top-level number": (b"42", "bad.json: the file must hold a case object or an array"),
    "top-level string": (b'"IL-0001"', "the file must hold a case object or an array of case"),
    "item not an object": (b"[1]", "bad.json: item 1: a case must be a JSON object, got a number"),
    "empty file": (b"  \n", "bad.json: the file is empty"),
}


@pytest.mark.parametrize("content,message", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_each_bad_file_is_named_and_nothing_is_written(seed_case, write_json, content, message):
    good = write_json("good.json", seed_case)
    before = snapshot()
    _out, err, error = run_import(good, write_json("bad.json", content))
    assert error
    assert message in err
    assert snapshot() == before


def test_json_lines_syntax_error_names_its_line(seed_case, write_json):
    text = json.dumps(seed_case) + "\n" + '{"id": "IL-0002"\n'
    _out, err, error = run_import(write_json("cases.jsonl", text))
    assert "cases.jsonl: line 2, column 17: invalid JSON" in err
    assert Case.objects.count() == 0


def test_duplicate_id_in_one_run_across_files(seed_case, write_json):
    _out, err, error = run_import(write_json("a.json", seed_case), write_json("b.json", seed_case))
    assert "b.json: IL-0585: id: IL-0585 appears twice in this run (first in " in err
    assert err.rstrip().endswith("a.json)")
    assert Case.objects.count() == 0


def test_every_problem_is_listed_not_only_the_first(seed_case, write_json):
    broken = bad(seed_case, severity="huge", date="yesterday", components="x")
    _out, err, _error = run_import(write_json("c.json", broken))
    assert "severity:" in err and "date:" in err and "components:" in err


def test_missing_path_is_reported(tmp_path):
    _out, err, error = run_import(tmp_path / "nowhere.json")
    assert "nowhere.json: no such file or folder" in err


def test_exit_status_is_1_on_bad_input(write_json, seed_case):
    path = write_json("c.json", bad(seed_case, severity="huge"))
    completed = subprocess.run(
        [sys.executable, "manage.py", "import_cases", str(path), "--dry-run"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"DJANGO_SETTINGS_MODULE": "incidentlib.settings.test", "PATH": "/usr/bin:/bin"},
    )
    assert completed.returncode == 1
    assert "severity: 'huge' is not one of" in completed.stderr


# --- upserts, idempotence and editors' work ---------------------------------------


def test_second_run_changes_nothing(seed_case, write_json):
    path = write_json("c.json", seed_case)
    run_import(path)
    before = snapshot()
    out, _err, error = run_import(path)
    assert error is None
    assert "created 0, updated 0, unchanged 1, skipped 0" in out
    assert snapshot() == before


def test_changed_file_updates_the_case(seed_case, write_json):
    run_import(write_json("c.json", seed_case))
    seed_case["summary"]["ko"] = "새 요약."
    seed_case["symptoms"] = ["storage-disconnected"]
    out, _err, _error = run_import(write_json("c.json", seed_case))
    assert "updated 1" in out
    case = Case.objects.get()
    assert case.summary_ko == "새 요약."
    assert [t.slug for t in case.terms_of(Vocabulary.SYMPTOM)] == ["storage-disconnected"]


def test_editor_changes_are_not_overwritten_without_force(seed_case, write_json):
    run_import(write_json("c.json", seed_case))
    case = Case.objects.get()
    case.title_ko = "편집자가 고친 제목"
    case.save()
    seed_case["summary"]["en"] = "The source library changed this."
    path = write_json("c.json", seed_case)

    out, _err, error = run_import(path)
    assert error is None
    assert "skipped 1" in out and "IL-0585" in out
    case.refresh_from_db()
    assert case.title_ko == "편집자가 고친 제목"
    assert case.summary_en != "The source library changed this."

    out, _err, _error = run_import(path, "--force")
    assert "updated 1" in out
    case.refresh_from_db()
    assert case.summary_en == "The source library changed this."
    assert case.title_ko == seed_case["title"]["ko"]


def test_case_written_in_the_cms_is_not_overwritten(seed_case, write_json):
    CaseFactory(public_id="IL-0585", title_en="Written by an editor")
    out, _err, _error = run_import(write_json("c.json", seed_case))
    assert "skipped 1" in out
    assert Case.objects.get().title_en == "Written by an editor"


def test_status_option_sets_the_status_of_new_cases_only(seed_case, write_json):
    CaseFactory(public_id="IL-0001", status=Case.Status.PUBLISHED)
    other = another_case(seed_case, "IL-0002")
    run_import(write_json("c.json", other), "--status", "draft")
    case = Case.objects.get(public_id="IL-0002")
    assert case.status == Case.Status.DRAFT and case.published_at is None
    assert Case.objects.get(public_id="IL-0001").status == Case.Status.PUBLISHED


def test_dry_run_reports_and_writes_nothing(seed_case, write_json):
    out, _err, error = run_import(write_json("c.json", seed_case), "--dry-run")
    assert error is None
    assert "would have created 1" in out
    assert Case.objects.count() == 0 and Term.objects.count() == 0


# --- the second process that finds the words ----------------------------------------


@pytest.fixture
def generated_file(tmp_path):
    """Thirty synthetic cases in JSON Lines, with their vocabularies loaded."""
    from bench.synthetic import CaseGenerator
    from cases.exchange.taxonomy import load_taxonomy

    generator = CaseGenerator(seed=5)
    load_taxonomy(generator.taxonomy())
    path = tmp_path / "cases.jsonl"
    path.write_text(
        "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in generator.cases(30)),
        encoding="utf-8",
    )
    return path


def test_a_second_process_finds_the_words_of_a_large_import(generated_file, monkeypatch):
    monkeypatch.setattr("cases.exchange.words.FEWEST_CASES", 10)
    monkeypatch.setattr("cases.exchange.importer.BATCH_SIZE", 7)

    def not_here(case):
        raise AssertionError("this process found words that the second one should have")

    # The second process is forked from this one, but calls its own module's name.
    monkeypatch.setattr("cases.search.text.case_words", not_here)
    out, _err, error = run_import(generated_file)
    assert error is None
    assert out.startswith("created 30,")
    monkeypatch.undo()
    # Each case's search text is the one this process would have made.
    assert refresh_search_text(Case.objects.all()) == 0
    assert all(case.search_text for case in Case.objects.all())


def test_if_the_second_process_fails_nothing_is_written(generated_file, monkeypatch):
    monkeypatch.setattr("cases.exchange.words.FEWEST_CASES", 10)

    def broken(case):
        raise ValueError("no words today")

    monkeypatch.setattr("cases.exchange.words.case_words", broken)
    before = snapshot()
    with pytest.raises(ValueError, match="no words today"):
        call_command("import_cases", str(generated_file), stdout=io.StringIO())
    assert snapshot() == before


def test_small_imports_find_their_words_in_this_process(generated_file, monkeypatch):
    def broken(case):
        raise ValueError("the second process ran")

    monkeypatch.setattr("cases.exchange.words.case_words", broken)
    out, _err, error = run_import(generated_file)  # 30 cases: fewer than FEWEST_CASES
    assert error is None
    assert refresh_search_text(Case.objects.all()) == 0
