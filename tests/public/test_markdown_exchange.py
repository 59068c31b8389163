"""Markdown passes through the exchange format as written: exported and imported again, a
text is the same string, every space, backslash and line break of it."""

import io
import json

import pytest
from django.core.management import call_command

from cases.models import Case, CaseStep

pytestmark = pytest.mark.django_db

MARKDOWN = {
    "en": (
        "The **queue** filled *up*:\n\n"
        "- a slow `consumer`  \n  with a hard break\n"
        "  1. nested\n"
        '- see [the postmortem](https://example.org/pm "a title")\n\n'
        "> quoted\n\n"
        "```\ncode <b> & \\* stays\n```\n\n"
        "    indented code\n\n"
        "\\*not emphasis\\* and \\_not\\_ either, 1990\\. a year\n"
        "<https://example.org/auto> <raw html> &amp;\t\n"
    ),
    "ko": "**장애**는 [DNS](https://example.org/한글)에서:\n\n1. 첫째\n2. 둘째\n\n> 인용  \n끝",
}


def export():
    stdout = io.StringIO()
    call_command("export_cases", stdout=stdout, stderr=io.StringIO())
    return json.loads(stdout.getvalue())


def test_markdown_comes_back_unchanged_after_export_and_import(seed_case, write_json):
    seed_case.update({field: MARKDOWN for field in ("summary", "trigger", "lessons")})
    seed_case["remediation"] = [MARKDOWN, "- plain *English* step"]
    call_command("import_cases", str(write_json("in.json", seed_case)), stdout=io.StringIO())
    case = Case.objects.get(public_id=seed_case["id"])
    assert case.summary_en == MARKDOWN["en"] and case.lessons_ko == MARKDOWN["ko"]

    (exported,) = export()
    assert exported["summary"] == MARKDOWN and exported["trigger"] == MARKDOWN
    assert exported["remediation"][:2] == [MARKDOWN, {"en": "- plain *English* step", "ko": ""}]

    Case.objects.all().delete()
    call_command("import_cases", str(write_json("out.json", exported)), stdout=io.StringIO())
    case = Case.objects.get(public_id=seed_case["id"])
    assert (case.summary_en, case.summary_ko) == (MARKDOWN["en"], MARKDOWN["ko"])
    step = case.steps.filter(kind=CaseStep.Kind.REMEDIATION).order_by("position").first()
    assert (step.text_en, step.text_ko) == (MARKDOWN["en"], MARKDOWN["ko"])
    assert export() == [exported]
