"""Cases and mutations shared by the tests of the exchange format's JSON Schema: a good case
of every field, ways to change one, and the rules the schema cannot say."""

import copy
import datetime
import json

from django.core.exceptions import ValidationError

from cases.exchange.schema import case_schema
from cases.rules import HTTP_URL
from tests.conftest import REPO, SEED

SEED_CASE = json.loads(SEED.read_text(encoding="utf-8"))
SCHEMA_DOCS = REPO / "docs" / "case-format.md"


def full_case():
    """The seed with every field given, in each of the spellings the format allows."""
    case = copy.deepcopy(SEED_CASE)
    case.update(
        date_kind="occurred",
        severity="high",
        impact={"scope": {"en": "All users", "ko": "모든 사용자"}, "users": "many", "region": None},
        contributing=["deploy-freeze"],
        root_cause="software-bug",
        timeline={"detected_after": "PT3H15M", "resolved_after": "P2DT4H"},
        remediation=["Rolled back.", {"en": "Paged the team.", "ko": "팀을 호출했다."}],
        action_items=[{"en": "", "ko": "경보를 고친다."}, {"en": "Fix the alert.", "ko": None}],
        related=["IL-1001", "IL-1002"],
        recurrence_of="IL-1003",
        docs=["https://example.org/runbook"],
        licence="CC-BY-SA-4.0",
        review={
            "written_by": "Ada",
            "reviewed_at": "2024-05-01T09:30:00+09:00",
            "reviewed_by": "Rita",
        },
    )
    case["sources"].append({"url": "HTTP://example.com/pm", "kind": None, "archived": ""})
    case["summary"]["ko"] = None
    return case


def holder_of(case, path):
    for step in path[:-1]:
        case = case[step]
    return case


def put(*path_and_value):
    """A mutation that sets the value at a path of keys and indexes."""
    *path, value = path_and_value

    def mutate(case):
        fresh = copy.deepcopy(value) if isinstance(value, dict | list) else value
        holder_of(case, path)[path[-1]] = fresh
        return case

    return mutate


def drop(*path):
    def mutate(case):
        del holder_of(case, path)[path[-1]]
        return case

    return mutate


def value_at(data, validator_path):
    """The value a validator problem's path (`sources[0].url`) names, or None."""
    for part in validator_path.replace("[", ".").replace("]", "").split("."):
        try:
            data = data[int(part)] if isinstance(data, list) else data[part]
        except (KeyError, IndexError, ValueError, TypeError):
            return None
    return data


def refused_by_django_url_validator(value):
    try:
        HTTP_URL(value)
    except ValidationError:
        return True
    return False


# The rules JSON Schema cannot say: (words of the validator's message, how the schema's
# description and docs/case-format.md name it). A refusal with one of these messages may
# come from a case the schema accepts; no other refusal may.
OUTSIDE_THE_SCHEMA = {
    "repeated key": ("given twice in one object", "given twice in one object"),
    "unpaired surrogate": ("unpaired surrogate", "half of a surrogate pair"),
    "date in the future": ("is in the future", "later than tomorrow"),
    "duration over 20 years": ("is longer than 20 years", "at most 20 years"),
    "link host": ("is not a valid link", "URLValidator"),
    "organisation slug": ("cannot be derived from", "Without `org_slug`"),
    "case names itself": ("itself", "may not name itself"),
}
# Said by the importer of a whole run, or its reader, not by the validator of one case.
OUTSIDE_THE_CASE = {
    "reference to a missing case": "neither in the database nor in this import",
    "id twice in a run": "appears twice in this run",
    "case over 2 MiB": "a case may be at most 2 MiB",
}
OUTSIDE_THE_CASE_DOCS = {
    "reference to a missing case": "names a case in the database or in the same run",
    "id twice in a run": "an id appears once",
    "case over 2 MiB": "at most 2 MiB",
}


def outside_the_schema(problem, data):
    """Whether a validator's problem is one of a rule the schema cannot say."""
    message = problem.message
    if "is not a valid link" in message:
        # The schema checks a link's scheme, characters and length; Django its host.
        value = value_at(data, problem.path)
        return isinstance(value, str) and refused_by_django_url_validator(value)
    return any(words in message for words, _named in OUTSIDE_THE_SCHEMA.values())


def schema_description():
    return case_schema()["description"]


def docs_text():
    """docs/case-format.md with its lines joined, as a reader reads its sentences."""
    return " ".join(SCHEMA_DOCS.read_text(encoding="utf-8").split())


def in_a_few_days():
    return datetime.date.today() + datetime.timedelta(days=5)
