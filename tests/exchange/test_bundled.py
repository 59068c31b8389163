"""The cases the project ships, and the labels of every term they use."""

import io
import json

import pytest
from django.core.management import call_command

from cases.models import Case, Term
from tests.conftest import REPO

pytestmark = pytest.mark.django_db
CASES_DIR = REPO / "data" / "cases"
TAXONOMY = REPO / "data" / "taxonomy.json"


@pytest.fixture
def bundled_library():
    call_command("load_taxonomy", str(TAXONOMY), stdout=io.StringIO())
    call_command("import_cases", str(CASES_DIR), stdout=io.StringIO())


def test_bundled_cases_import_cleanly(bundled_library):
    ids = set(Case.objects.public().values_list("public_id", flat=True))
    assert {"IL-0585", "IL-1001", "IL-1002"} <= ids
    assert len(ids) >= 15
    assert Case.objects.values("org").distinct().count() >= 6


def test_il_0585_is_bundled_as_given():
    bundled = json.loads((CASES_DIR / "IL-0585.json").read_text(encoding="utf-8"))
    shared = REPO.parent / "shared" / "seeds" / "IL-0585.json"
    if shared.exists():
        assert bundled == json.loads(shared.read_text(encoding="utf-8"))
    assert bundled["id"] == "IL-0585"


def test_every_term_in_use_has_an_english_and_a_korean_label(bundled_library):
    taxonomy = json.loads(TAXONOMY.read_text(encoding="utf-8"))
    labelled = {
        (vocabulary, term["slug"])
        for vocabulary, terms in taxonomy.items()
        for term in terms
        if term["label"].get("en") and term["label"].get("ko")
    }
    used = Term.objects.filter(case_terms__isnull=False) | Term.objects.filter(
        caused_cases__isnull=False
    )
    for term in used.distinct():
        assert (term.vocabulary, term.slug) in labelled, f"{term} is not labelled in taxonomy.json"
        assert term.label_en and term.label_ko


def test_the_seed_pages_terms_have_its_labels(bundled_library):
    labels = {t.slug: t.label_ko for t in Term.objects.all()}
    assert labels["overlapping-failures"] == "장애 중첩"
    assert labels["cluster-autoscaler"] == "클러스터 오토스케일러"
    assert labels["application-database"] == "애플리케이션 데이터베이스"
    hugging_face = Case.objects.filter(org__slug="hugging-face", terms__slug="overlapping-failures")
    assert hugging_face.count() == 2


def test_every_bundled_case_has_both_languages_and_a_source(bundled_library):
    for case in Case.objects.prefetch_related("sources"):
        for field in ("title", "summary", "trigger", "detection", "lessons", "symptoms_text"):
            assert getattr(case, f"{field}_en"), f"{case.public_id} {field} lacks English"
            assert getattr(case, f"{field}_ko"), f"{case.public_id} {field} lacks Korean"
        assert case.sources.exists(), f"{case.public_id} cites no source"


def test_every_term_filter_has_more_than_one_case(bundled_library):
    # Reused terms are what make the filters worth having.
    shared = [t for t in Term.objects.all() if t.case_terms.count() + t.caused_cases.count() >= 2]
    assert len(shared) >= 10


def test_loading_the_taxonomy_again_keeps_editors_labels(bundled_library):
    term = Term.objects.get(slug="overlapping-failures")
    term.label_en = "Failures at once"
    term.save()
    out = io.StringIO()
    call_command("load_taxonomy", str(TAXONOMY), stdout=out)
    term.refresh_from_db()
    assert term.label_en == "Failures at once"
    call_command("load_taxonomy", str(TAXONOMY), "--force", stdout=out)
    term.refresh_from_db()
    assert term.label_en == "Overlapping failures"


def test_taxonomy_fills_in_terms_an_import_created_first(seed_case, write_json):
    call_command("import_cases", str(write_json("c.json", seed_case)), stdout=io.StringIO())
    assert not Term.objects.get(slug="shared-filesystem").label_ko
    call_command("load_taxonomy", str(TAXONOMY), stdout=io.StringIO())
    term = Term.objects.get(slug="shared-filesystem")
    assert term.label_ko == "공유 파일 시스템"
    assert "HDFS" in term.alias_list("en")
