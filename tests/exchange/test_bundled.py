"""The cases the project ships, and the labels of every term they use."""

import io
import json

import pytest
from django.core.management import call_command

from cases.models import Case, Organisation, Term
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
        if vocabulary != "organisations"
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


def test_every_bundled_case_is_of_an_organisation_with_a_korean_name(bundled_library):
    # Readers search 메타, 페이스북 and 깃랩, and Korean pages name them so; the taxonomy created
    # these, and the import reused them.
    taxonomy = json.loads(TAXONOMY.read_text(encoding="utf-8"))
    listed = {org["slug"] for org in taxonomy["organisations"]}
    for org in Organisation.objects.filter(cases__isnull=False).distinct():
        assert org.slug in listed, f"{org.slug} is not in taxonomy.json"
        assert org.name_ko, f"{org.slug} has no Korean name"
        assert org.links, f"{org.slug} has no links"
    meta = Organisation.objects.get(slug="meta")
    assert (meta.name_ko, meta.alias_list("ko")) == ("메타", ["페이스북"])
    assert "Facebook" in meta.alias_list("en")


def test_the_bundled_organisations_are_named_as_their_cases_name_them(bundled_library):
    # A name of its own in the taxonomy would show instead of the cases' on every page, and
    # each re-import would then skip those cases as changed by an editor.
    for path in sorted(CASES_DIR.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        assert Organisation.objects.get(slug=case["org_slug"]).name == case["org"], path.name
    out = io.StringIO()
    call_command("import_cases", str(CASES_DIR), stdout=out)
    assert "skipped 0" in out.getvalue()


# Products named in English labels and aliases, and how Korean writes each one.
PRODUCTS_IN_HANGUL = {
    "Kubernetes": "쿠버네티스",
    "Redis": "레디스",
    "Memcached": "멤캐시드",
    "Consul": "컨설",
    "MySQL": "마이에스큐엘",
    "PostgreSQL": "포스트그레스큐엘",
    "Postgres": "포스트그레스",
    "MongoDB": "몽고DB",
    "Amazon S3": "아마존 S3",
    "Google Cloud Storage": "구글 클라우드 스토리지",
}


def test_every_term_naming_a_product_has_its_korean_spelling(bundled_library):
    named = 0
    for term in Term.objects.all():
        english = " | ".join([term.label_en, *term.alias_list("en")]).casefold()
        korean = [term.label_ko, *term.alias_list("ko")]
        for product, hangul in PRODUCTS_IN_HANGUL.items():
            if product.casefold() in english:
                named += 1
                assert any(hangul in name for name in korean), f"{term} lacks {hangul}"
    assert named >= len(PRODUCTS_IN_HANGUL)  # the list still names products the terms name
