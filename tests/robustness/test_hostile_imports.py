"""Hostile case files, made here rather than kept (some are megabytes): each is refused with
its file, case id and field named, no traceback, nothing written, and the site unharmed."""

import io
import json
import tracemalloc

import pytest
from django.core.management import CommandError, call_command

from cases.exchange.reading import Input
from tests.library import database_fingerprint, load_bundled_library

pytestmark = pytest.mark.django_db

SITE = ["/en/cases/", "/en/cases/?q=disk", "/en/feed.atom", "/sitemap.xml", "/en/graph/"]


def good_case(**changes):
    case = {
        "id": "IL-7001",
        "org": "Acme",
        "date": "2024-01-01",
        "title": {"en": "Disk full on the build server", "ko": "빌드 서버 디스크가 가득 찼다"},
    }
    case.update(changes)
    return case


def as_json(value):
    return json.dumps(value, ensure_ascii=False)


def refused(path):
    """What the import says; it must fail as a command does, never with a traceback."""
    stderr = io.StringIO()
    with pytest.raises(CommandError, match=r"^Nothing was imported: \d+ problem\(s\) found\.$"):
        call_command("import_cases", str(path), stdout=io.StringIO(), stderr=stderr)
    return stderr.getvalue()


@pytest.fixture
def library():
    load_bundled_library()


def bad_value_file(key_path, value):
    case = good_case()
    target = case
    *parents, last = key_path
    for key in parents:
        target = target.setdefault(key, {})
    target[last] = value
    return as_json(case)


# (file name, its text, what the import must say of it)
HOSTILE = [
    ("newline-id.json", as_json(good_case(id="IL-1002\n")), r"id: 'IL-1002\n' is not a case id"),
    ("arabic-digits.json", as_json(good_case(id="IL-١٢٣٤")), "id: 'IL-١٢٣٤' is not a case id"),
    ("full-width.json", as_json(good_case(id="IL-１２３４")), "id: 'IL-１２３４' is not a case id"),
    (
        "newline-related.json",
        as_json(good_case(related=["IL-1001\n"])),
        r"IL-7001: related[0]: 'IL-1001\n' is not a case id",
    ),
    (
        "newline-org-slug.json",
        as_json(good_case(org_slug="acme\n")),
        r"IL-7001: org_slug: 'acme\n' is not a slug",
    ),
    (
        "newline-term.json",
        as_json(good_case(components=["dns\n"])),
        r"IL-7001: components[0]: 'dns\n' is not a slug",
    ),
    (
        "unicode-org.json",
        as_json(good_case(org="카카오")),
        "IL-7001: org_slug: cannot be derived from '카카오'",
    ),
    (
        "huge-duration.json",
        bad_value_file(["timeline", "detected_after"], "P99999999999999999999D"),
        "IL-7001: timeline.detected_after: is longer than 20 years",
    ),
    (
        "huge-hours.json",
        bad_value_file(["timeline", "resolved_after"], "PT99999999999999H"),
        "IL-7001: timeline.resolved_after: is longer than 20 years",
    ),
    (
        "year-9999.json",
        as_json(good_case(updated_at="9999-12-31T23:00:00-05:00")),
        "IL-7001: updated_at: '9999-12-31T23:00:00-05:00' is in the future",
    ),
    (
        "year-1.json",
        bad_value_file(["review", "reviewed_at"], "0001-01-01T00:00:00+05:00"),
        "IL-7001: review.reviewed_at: '0001-01-01T00:00:00+05:00' is before 1900",
    ),
    (
        "future-date.json",
        as_json(good_case(date="2999-01-01")),
        "IL-7001: date: '2999-01-01' is in the future",
    ),
    (
        "deep-nesting.json",
        '{"id": "IL-7001", "summary": {"en": ' + "[" * 100_000 + "]" * 100_000 + "}}",
        "deep-nesting.json: nested deeper than the case format allows",
    ),
    (
        "modest-nesting.json",
        bad_value_file(["summary", "en"], [[[["deep"]]]]),
        "IL-7001: summary.en: must be a string, got a list",
    ),
    (
        "long-number.json",
        '{"id": "IL-7001", "org": "Acme", "date": "2024-01-01", "title": {"en": "T"}, '
        '"severity": ' + "9" * 100_000 + "}",
        "IL-7001: severity: must be a string, got a number",
    ),
    (
        "nan.json",
        '{"id": "IL-7001", "org": "Acme", "date": "2024-01-01", "title": {"en": NaN}}',
        "IL-7001: title.en: must be a string, got NaN, which JSON does not allow",
    ),
    (
        "infinity.jsonl",
        '{"id": "IL-7001", "org": "Acme", "date": "2024-01-01", "title": {"en": "T"}, '
        '"severity": -Infinity}\n',
        "IL-7001: severity: must be a string, got -Infinity, which JSON does not allow",
    ),
    (
        "surrogate.json",
        '{"id": "IL-7001", "org": "Acme", "date": "2024-01-01", '
        '"title": {"en": "T"}, "summary": {"en": "half \\ud800 a character"}}',
        "IL-7001: summary.en: holds an unpaired surrogate (\\ud800), which is not text",
    ),
    (
        "many-steps.json",
        as_json(good_case(remediation=["Restart."] * 100_000)),
        "IL-7001: remediation: at most 200 steps, not 100,000",
    ),
    (
        "many-terms.json",
        as_json(good_case(components=[f"c{n}" for n in range(51)])),
        "IL-7001: components: at most 50 terms, not 51",
    ),
    (
        "many-sources.json",
        as_json(good_case(sources=[{"url": f"https://e.example/{n}"} for n in range(51)])),
        "IL-7001: sources: at most 50 sources, not 51",
    ),
    (
        "long-summary.json",
        bad_value_file(["summary", "en"], "x" * 50_001),
        "IL-7001: summary.en: at most 50,000 characters, not 50,001",
    ),
    (
        "long-step.json",
        as_json(good_case(action_items=[{"en": "y" * 5_001}])),
        "IL-7001: action_items[0].en: at most 5,000 characters, not 5,001",
    ),
    (
        "long-org.json",
        as_json(good_case(org="O" * 201, org_slug="o")),
        "IL-7001: org: at most 200 characters, not 201",
    ),
    (
        "duplicate-key.json",
        '{"id": "IL-7001", "org": "Acme", "date": "2024-01-01", "title": {"en": "T"}, '
        '"id": "IL-1001"}',
        "IL-1001: id: given twice in one object",
    ),
    (
        "duplicate-nested-key.jsonl",
        '{"id": "IL-7001", "org": "Acme", "date": "2024-01-01", "title": {"en": "T", "en": "U"}}\n',
        "IL-7001: title.en: given twice in one object",
    ),
    (
        "big-line.jsonl",
        '{"id": "IL-7001", "summary": {"en": "' + "z" * (3 * 1024 * 1024) + '"}}\n',
        "big-line.jsonl: line 1: a case may be at most 2 MiB of JSON",
    ),
    (
        "big-item.json",
        '[{"id": "IL-7001", "summary": {"en": "' + "z" * (3 * 1024 * 1024) + '"}}]',
        "big-item.json: item 1: a case may be at most 2 MiB of JSON",
    ),
]


@pytest.mark.parametrize("name,text,expected", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_file_is_refused_by_name(library, client, tmp_path, name, text, expected):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    before = database_fingerprint()
    said = refused(path)
    assert expected in said, said
    assert "Traceback" not in said
    assert database_fingerprint() == before
    for url in SITE:
        assert client.get(url).status_code == 200, url


def test_a_line_far_over_the_limit_is_never_held_whole(tmp_path):
    path = tmp_path / "huge.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        stream.write('{"id": "IL-7001", "summary": {"en": "')
        for _ in range(40):
            stream.write("z" * (1024 * 1024))
        stream.write('"}}\n')
        stream.write(as_json(good_case(id="IL-7002")) + "\n")
    tracemalloc.start()
    try:
        source = Input(str(path), path, json_lines=True)
        records = list(source.records())
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [r.value["id"] for r in records] == ["IL-7002"]
    assert "line 1: a case may be at most 2 MiB of JSON" in " ".join(source.problems)
    assert peak < 8 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB for a 40 MB line"


def test_an_array_file_is_read_a_case_at_a_time(tmp_path):
    path = tmp_path / "many.json"
    cases = [good_case(id=f"IL-{8000 + n}", summary={"en": "w" * 10_000}) for n in range(2_000)]
    path.write_text(json.dumps(cases), encoding="utf-8")
    assert path.stat().st_size > 20_000_000
    tracemalloc.start()
    try:
        source = Input(str(path), path, json_lines=False)
        count = sum(1 for _record in source.records())
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 2_000 and not source.problems
    assert peak < 8 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB for a 20 MB file"


def test_a_file_of_endless_problems_lists_a_thousand_and_counts_the_rest(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text("not json\n" * 3_000 + '{"id": "IL-1"}\n' * 2_000, encoding="utf-8")
    stderr = io.StringIO()
    # 3,000 lines that are no JSON, and 2,000 cases with four problems each.
    with pytest.raises(CommandError, match=r"^Nothing was imported: 11000 problem\(s\) found"):
        call_command("import_cases", str(path), stdout=io.StringIO(), stderr=stderr)
    lines = stderr.getvalue().splitlines()
    assert len(lines) == 1_001
    assert lines[0].startswith(f"{path}: IL-1: id: 'IL-1' is not a case id")
    assert lines[-1] == "... and 10,000 more problem(s), not listed"


def test_an_empty_step_is_named_even_after_a_later_step_with_a_problem(tmp_path):
    # remediation[1] is empty; remediation[10] has a problem of its own, whose path begins
    # with "remediation[1]" too: each is named.
    steps = ["Restart."] * 12
    steps[1] = {"en": "", "ko": ""}
    steps[10] = {"en": "x" * 5_001}
    path = tmp_path / "steps.json"
    path.write_text(as_json(good_case(remediation=steps)), encoding="utf-8")
    said = refused(path)
    assert "IL-7001: remediation[1]: is empty in both languages" in said
    assert "IL-7001: remediation[10].en: at most 5,000 characters" in said
