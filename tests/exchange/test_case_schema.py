"""docs/case-format.schema.json says what the one validator (cases/exchange/validation.py)
says: every bundled case and every export fits it, every kind of case the importer refuses
fails it, and the rules it cannot say are named in its description and in the docs."""

import copy
import datetime
import io
import json
import re

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from jsonschema import Draft202012Validator

from cases.exchange.decoding import LongNumber, NotANumber, loads
from cases.exchange.schema import case_schema, schema_errors
from cases.exchange.validation import validate_case
from cases.models import Case, CaseStep, Organisation, Vocabulary
from tests.conftest import REPO
from tests.exchange.schema_cases import (
    OUTSIDE_THE_CASE,
    OUTSIDE_THE_CASE_DOCS,
    OUTSIDE_THE_SCHEMA,
    SEED_CASE,
    docs_text,
    drop,
    full_case,
    in_a_few_days,
    put,
    schema_description,
)
from tests.factories import CaseFactory, CaseStepFactory, SourceFactory, TermFactory

BUNDLED = sorted((REPO / "data" / "cases").glob("*.json"))


def accepted(data):
    normal, problems = validate_case(data)
    return normal is not None and not problems


def test_the_schema_is_a_draft_2020_12_schema():
    schema = case_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("/case-format.schema.json")
    Draft202012Validator.check_schema(schema)


def test_the_schema_names_every_field_the_validator_knows():
    from cases.exchange.validation import TOP_LEVEL_FIELDS

    assert set(case_schema()["properties"]) == TOP_LEVEL_FIELDS


@pytest.mark.parametrize("path", BUNDLED, ids=[path.stem for path in BUNDLED])
def test_every_bundled_case_fits_the_schema(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert accepted(data)
    assert schema_errors(data) == []


def test_the_seed_case_and_a_case_of_every_field_fit_the_schema():
    assert "IL-0585" in [path.stem for path in BUNDLED]
    for data in (SEED_CASE, full_case()):
        assert accepted(data)
        assert schema_errors(data) == []


def test_schema_errors_name_the_field_and_the_rule():
    data = put("sources", 0, "url", "ftp://example.org")(full_case())
    data = put("recurrence_of", "IL-1")(put("severity", "huge")(data))
    assert schema_errors(data) == [
        "recurrence_of: 'IL-1' does not fit: IL- and at least four ASCII digits.",
        "severity: 'huge' is not one of ['unknown', 'low', 'medium', 'high', 'critical', None]",
        "sources[0].url: 'ftp://example.org' does not fit: An http or https link, at most 1,000 "
        "characters, without spaces or control characters.",
    ]
    assert schema_errors([]) == ["(case): [] is not of type 'object'"]


# --- every export ---------------------------------------------------------------------


def a_minimal_case():
    return CaseFactory(title_ko="", summary_en="", summary_ko="", date_kind=Case.DateKind.OCCURRED)


def a_full_case():
    term = {vocabulary: TermFactory(vocabulary=vocabulary) for vocabulary in Vocabulary}
    earlier = CaseFactory()
    case = CaseFactory(
        date_kind=Case.DateKind.PUBLISHED,
        severity=Case.Severity.CRITICAL,
        trigger_en="A *deploy*\n\n1. went\n2. wrong",
        trigger_ko="배포가 잘못됐다.",
        impact_scope_en="All users",
        impact_scope_ko="모든 사용자",
        impact_users_en="3 million",
        root_cause=term[Vocabulary.ROOT_CAUSE],
        detected_after=datetime.timedelta(hours=3, minutes=15),
        resolved_after=datetime.timedelta(days=2, seconds=0.5),
        docs=["https://example.org/runbook", "http://example.org/a?b=c#d"],
        written_by="Ada",
        reviewed_by="Rita",
        reviewed_at=timezone.now() - datetime.timedelta(days=1),
        source_url="https://example.org/cases/1",
        licence="CC-BY-SA-4.0",
        recurrence_of=earlier,
        with_terms=[term[v] for v in Vocabulary if v != Vocabulary.ROOT_CAUSE],
    )
    SourceFactory(case=case, kind="postmortem", archived="https://web.archive.org/x/y")
    SourceFactory(case=case, kind="", archived="")
    CaseStepFactory(case=case, text_ko="")
    CaseStepFactory(case=case, kind=CaseStep.Kind.ACTION_ITEM, text_en="")
    case.related.add(earlier, through_defaults={"position": 0})
    return case


def a_korean_case():
    org = Organisation.objects.create(name="카카오", slug="kakao")
    fields = ("title", "summary", "trigger", "detection", "lessons", "symptoms_text")
    return CaseFactory(
        org=org,
        **{f"{field}_en": "" for field in fields},
        **{f"{field}_ko": f"{field} 한국어" for field in fields},
        impact_region_ko="판교",
    )


def a_withdrawn_case():
    return CaseFactory(status=Case.Status.WITHDRAWN)


@pytest.mark.django_db
@pytest.mark.parametrize("build", [a_minimal_case, a_full_case, a_korean_case, a_withdrawn_case])
def test_every_export_fits_the_schema(build):
    case = build()
    stdout = io.StringIO()
    call_command("export_cases", "--jsonl", stdout=stdout, stderr=io.StringIO())
    exported = {data["id"]: data for data in map(json.loads, stdout.getvalue().splitlines())}
    assert case.public_id in exported
    for data in exported.values():
        assert accepted(data), data["id"]
        assert schema_errors(data) == [], data["id"]


# --- every kind of case the importer refuses ------------------------------------------

LONG_LINK = "https://example.org/" + "a" * 981
REFUSED = {
    "not an object": lambda case: [case],
    "unknown field": put("cost", 1),
    "id missing": drop("id"),
    "id a number": put("id", 585),
    "id of three digits": put("id", "IL-585"),
    "id with a final newline": put("id", "IL-0585\n"),
    "id in Arabic-Indic digits": put("id", "IL-٠٥٨٥"),
    "id too long": put("id", "IL-" + "1" * 18),
    "org missing": drop("org"),
    "org null": put("org", None),
    "org blank": put("org", " \t\u3000"),
    "org too long": put("org", "x" * 201),
    "org with NUL": put("org", "Micro\x00soft"),
    "org_slug not a slug": put("org_slug", "Microsoft"),
    "org_slug empty": put("org_slug", ""),
    "org_slug too long": put("org_slug", "a" * 101),
    "org_slug with a final newline": put("org_slug", "microsoft\n"),
    "date missing": drop("date"),
    "date not a real day": put("date", "2019-02-29"),
    "date in another form": put("date", "08/08/2019"),
    "date as a week date": put("date", "2019-W32-4"),
    "date before 1900": put("date", "1899-12-31"),
    "date a number": put("date", 20190808),
    "date_kind unknown": put("date_kind", "estimated"),
    "severity unknown": put("severity", "huge"),
    "severity empty": put("severity", ""),
    "severity a number": put("severity", 3),
    "severity NaN": put("severity", NotANumber("NaN")),
    "severity a number too long to convert": put("severity", LongNumber("9" * 200)),
    "title missing": drop("title"),
    "title null": put("title", None),
    "title blank in both languages": put("title", {"en": " \n", "ko": ""}),
    "title a plain string": put("title", "A title"),
    "title too long": put("title", {"en": "x" * 501}),
    "title in an unknown language": put("title", {"en": "x", "fr": "y"}),
    "title a number in one language": put("title", {"en": "x", "ko": 1}),
    "summary a plain string": put("summary", "plain"),
    "summary too long": put("summary", {"en": "x" * 50_001}),
    "summary with NUL": put("summary", {"ko": "a\x00b"}),
    "impact not an object": put("impact", "big"),
    "impact unknown key": put("impact", "cost", "y"),
    "impact value a number": put("impact", "scope", 5),
    "impact value too long": put("impact", "users", "x" * 5001),
    "impact translation too long": put("impact", "region", {"ko": "가" * 5001}),
    "impact in an unknown language": put("impact", "scope", {"de": "x"}),
    "terms not a list": put("components", "dns"),
    "terms too many": put("domain", [f"t{n}" for n in range(51)]),
    "term twice": put("symptoms", ["a", "a"]),
    "term not a slug": put("components", ["DNS"]),
    "term null": put("components", [None]),
    "term too long": put("contributing", ["a" * 101]),
    "root_cause not a slug": put("root_cause", "Software bug"),
    "root_cause a list": put("root_cause", ["software-bug"]),
    "timeline not an object": put("timeline", []),
    "timeline unknown key": put("timeline", "mitigated_after", "PT1H"),
    "duration in words": put("timeline", "detected_after", "3 hours"),
    "duration negative": put("timeline", "detected_after", "-PT1H"),
    "duration in years": put("timeline", "resolved_after", "P1Y"),
    "duration with an empty time part": put("timeline", "resolved_after", "P1DT"),
    "duration longer than 40 characters": put("timeline", "resolved_after", "PT" + "1" * 40 + "S"),
    "steps not a list": put("remediation", "Rolled back."),
    "steps too many": put("action_items", ["x"] * 201),
    "step null": put("remediation", [None]),
    "step an empty string": put("remediation", [""]),
    "step empty in both languages": put("remediation", [{"en": "", "ko": None}]),
    "step an empty object": put("action_items", [{}]),
    "step a number": put("action_items", [1]),
    "step too long": put("remediation", ["x" * 5001]),
    "step in an unknown language": put("remediation", [{"de": "x"}]),
    "related not a list": put("related", "IL-1001"),
    "related too many": put("related", [f"IL-{n:04d}" for n in range(1, 102)]),
    "related null": put("related", [None]),
    "related not an id": put("related", ["1001"]),
    "related twice": put("related", ["IL-1001", "IL-1001"]),
    "recurrence_of not an id": put("recurrence_of", "IL-1"),
    "recurrence_of a list": put("recurrence_of", ["IL-1001"]),
    "sources not a list": put("sources", {}),
    "sources too many": put("sources", [{"url": f"https://x.org/{n}"} for n in range(51)]),
    "source not an object": put("sources", ["https://x.org"]),
    "source without url": put("sources", [{"kind": "paper"}]),
    "source url null": put("sources", 0, "url", None),
    "source url empty": put("sources", 0, "url", " "),
    "source url javascript": put("sources", 0, "url", "javascript:alert(1)"),
    "source url ftp": put("sources", 0, "url", "ftp://example.org/a"),
    "source url with a space": put("sources", 0, "url", "https://example.org/a b"),
    "source url with a control character": put("sources", 0, "url", "https://example.org/\x7f"),
    "source url with a final newline": put("sources", 0, "url", "https://example.org/\n"),
    "source url too long": put("sources", 0, "url", LONG_LINK),
    "source kind not a slug": put("sources", 0, "kind", "Post mortem"),
    "source kind empty": put("sources", 0, "kind", ""),
    "source kind too long": put("sources", 0, "kind", "a" * 51),
    "source archived data:": put("sources", 0, "archived", "data:text/html,x"),
    "source unknown key": put("sources", 0, "title", "x"),
    "docs not a list": put("docs", "https://x.org"),
    "docs too many": put("docs", [f"https://x.org/{n}" for n in range(51)]),
    "doc null": put("docs", [None]),
    "doc empty": put("docs", [""]),
    "doc a file link": put("docs", ["file:///etc/passwd"]),
    "review not an object": put("review", "Ada"),
    "review unknown key": put("review", "approved", "yes"),
    "review name too long": put("review", "written_by", "x" * 201),
    "review name a number": put("review", "reviewed_by", 7),
    "reviewed_at without a zone": put("review", "reviewed_at", "2024-05-01T09:30:00"),
    "reviewed_at in words": put("review", "reviewed_at", "yesterday"),
    "reviewed_at before 1900": put("review", "reviewed_at", "1899-12-31T23:00:00Z"),
    "reviewed_at longer than 40": put("review", "reviewed_at", "2024-05-01T09:30:00." + "0" * 30),
    "reviewed_at compact": put("review", "reviewed_at", "20240501T093000Z"),
    "reviewed_at at hour 24": put("review", "reviewed_at", "2024-05-01T24:00:00Z"),
    "updated_at a number": put("updated_at", 1),
    "updated_at not a real day": put("updated_at", "2023-02-29T10:00:00Z"),
    "url not http": put("url", "ftp://example.org"),
    "url a number": put("url", 1),
    "licence empty": put("licence", ""),
    "licence with a space": put("licence", "CC BY 4.0"),
    "licence an expression": put("licence", "MIT OR Apache-2.0"),
    "licence starting with a hyphen": put("licence", "-MIT"),
    "licence with a final newline": put("licence", "MIT\n"),
    "licence not ASCII": put("licence", "CC-BY-4.0é"),
    "licence too long": put("licence", "L" * 101),
    "licence a number": put("licence", 4),
    "licence a list": put("licence", ["MIT"]),
}


@pytest.mark.parametrize("mutate", REFUSED.values(), ids=REFUSED.keys())
def test_what_the_validator_refuses_the_schema_refuses(mutate):
    data = mutate(full_case())
    assert not accepted(data), "the validator accepts this"
    assert schema_errors(data), "the schema accepts this"


# --- the rules outside the schema -------------------------------------------------------

OUTSIDE = {
    "repeated key": lambda case: loads(json.dumps(case)[:-1] + ', "severity": "low"}'),
    "unpaired surrogate": put("title", "en", "half a pair: \ud800"),
    "date in the future": lambda case: put("date", in_a_few_days().isoformat())(case),
    "duration over 20 years": put("timeline", "resolved_after", "P7301D"),
    "link host": put("sources", 0, "url", "https://example"),
    "organisation slug": lambda case: drop("org_slug")(put("org", "카카오")(case)),
    "case names itself": put("related", ["IL-1001", "IL-0585"]),
}


def test_every_rule_outside_the_schema_is_tested():
    assert set(OUTSIDE) == set(OUTSIDE_THE_SCHEMA)


@pytest.mark.parametrize("rule", OUTSIDE)
def test_the_validator_alone_says_the_rules_outside_the_schema(rule):
    data = OUTSIDE[rule](full_case())
    _normal, problems = validate_case(data)
    words, named = OUTSIDE_THE_SCHEMA[rule]
    assert problems and all(words in problem.message for problem in problems)
    # If the schema learns to say one of these, move it out of the lists.
    assert schema_errors(data) == []
    assert named in schema_description()
    assert named in docs_text()


def test_a_future_date_and_time_and_a_recurrence_of_itself_are_outside_too():
    later = (timezone.now() + datetime.timedelta(days=3)).isoformat()
    for mutate in (put("updated_at", later), put("recurrence_of", "IL-0585")):
        data = mutate(full_case())
        assert not accepted(data)
        assert schema_errors(data) == []


@pytest.mark.django_db
def test_the_rules_of_a_whole_import_are_outside_the_schema(write_json):
    missing = put("related", ["IL-9999"])(copy.deepcopy(SEED_CASE))
    renamed = put("id", "IL-0586")(put("org", "Microsoft Research")(copy.deepcopy(SEED_CASE)))
    huge = put("remediation", [{"en": "x" * 5000, "ko": "가" * 5000}] * 200)(
        put("id", "IL-0587")(copy.deepcopy(SEED_CASE))
    )
    cases = [missing, SEED_CASE, renamed, huge]
    assert all(accepted(data) and not schema_errors(data) for data in cases)
    stderr = io.StringIO()
    with pytest.raises(CommandError, match="Nothing was imported"):
        call_command(
            "import_cases",
            str(write_json("run.jsonl", "\n".join(json.dumps(c) for c in cases))),
            stdout=io.StringIO(),
            stderr=stderr,
        )
    docs = docs_text()
    for rule, words in OUTSIDE_THE_CASE.items():
        assert words in stderr.getvalue(), rule
        assert OUTSIDE_THE_CASE_DOCS[rule] in schema_description(), rule
        assert OUTSIDE_THE_CASE_DOCS[rule] in docs, rule


# --- the whitespace the patterns spell out ----------------------------------------------


def pattern_class(pattern, before, after):
    return re.compile(pattern.removeprefix(before).removesuffix(after))


def test_blank_means_what_python_strips():
    non_blank = re.compile(case_schema()["properties"]["org"]["pattern"])
    for code in range(0x3100):
        character = chr(code)
        assert bool(non_blank.fullmatch(character)) == (character.strip() != ""), hex(code)


def test_a_link_refuses_the_characters_the_validator_refuses():
    from cases.rules import UNSAFE_URL_CHARACTER

    link = case_schema()["$defs"]["link"]["pattern"]
    allowed = pattern_class(link, "^[Hh][Tt][Tt][Pp][Ss]?://", "+$")
    for code in range(0x3100):
        character = chr(code)
        assert bool(allowed.fullmatch(character)) == (not UNSAFE_URL_CHARACTER.search(character)), (
            hex(code)
        )


@pytest.mark.parametrize(
    "licence", [None, "MIT", "CC-BY-SA-4.0", "GPL-2.0+", "LicenseRef-catalogue.1", "L" * 100]
)
def test_a_licence_identifier_is_accepted_by_both(licence):
    data = put("licence", licence)(full_case())
    assert accepted(data)
    assert schema_errors(data) == []
