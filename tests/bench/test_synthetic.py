import io
import json

import pytest
from django.core.management import call_command

from bench.synthetic import VOCABULARY_SIZES, CaseGenerator
from cases.models import Case, CaseTerm, Organisation, Term


def test_same_seed_same_cases_and_another_seed_other_cases():
    first = list(CaseGenerator(seed=3).cases(20))
    assert first == list(CaseGenerator(seed=3).cases(20))
    assert first != list(CaseGenerator(seed=4).cases(20))


def test_generated_cases_look_like_real_ones():
    cases = list(CaseGenerator(seed=1).cases(400))
    one = cases[10]
    # Texts of the lengths IL-0585 has, in both languages.
    assert len(one["summary"]["en"]) >= 1300 and len(one["summary"]["ko"]) >= 1000
    assert len(one["symptoms_text"]["en"]) >= 1800
    years = {case["date"][:4] for case in cases}
    assert len(years) >= 12  # spread over fifteen years
    # Skewed use: the most used component appears far more often than the median one.
    uses = {}
    for case in cases:
        for slug in case["components"]:
            uses[slug] = uses.get(slug, 0) + 1
    counts = sorted(uses.values(), reverse=True)
    assert counts[0] >= 5 * counts[len(counts) // 2]
    assert len({case["org"] for case in cases}) >= 100
    assert all(VOCABULARY_SIZES[v] >= 12 for v in VOCABULARY_SIZES)


@pytest.mark.django_db
def test_generate_cases_fills_the_database_and_is_deterministic(tmp_path):
    call_command("generate_cases", "--count", "30", "--seed", "5", stdout=io.StringIO())
    assert Case.objects.public().count() == 30
    assert Organisation.objects.count() >= 10
    assert CaseTerm.objects.count() >= 60
    # Every generated term has both labels.
    assert not Term.objects.filter(slug__startswith="syn-", label_ko="").exists()
    out = tmp_path / "again.jsonl"
    call_command(
        "generate_cases", "--count", "30", "--seed", "5", "--output", str(out), stdout=io.StringIO()
    )
    exported = io.StringIO()
    call_command("export_cases", "--jsonl", stdout=exported)
    from_db = {c["id"]: c for c in map(json.loads, exported.getvalue().splitlines())}
    from_file = [json.loads(line) for line in out.read_text().splitlines()]
    assert [c["title"] for c in from_file] == [from_db[c["id"]]["title"] for c in from_file]
