import pytest
from django.utils import translation

from tests.factories import CaseFactory, CaseStepFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db


def test_missing_korean_text_falls_back_to_english():
    case = CaseFactory(title_en="Disk full", title_ko="", summary_ko="요약")
    step = CaseStepFactory(case=case, text_en="Freed space.", text_ko="")
    term = TermFactory(label_en="Object storage", label_ko="")
    with translation.override("ko"):
        assert case.title == "Disk full"
        assert case.summary == "요약"
        assert step.text == "Freed space."
        assert term.label == "Object storage"


def test_english_page_shows_english_even_when_korean_exists():
    case = CaseFactory(title_en="Disk full", title_ko="디스크 가득 참")
    with translation.override("en"):
        assert case.title == "Disk full"
    with translation.override("ko"):
        assert case.title == "디스크 가득 참"


def test_aliases_are_one_a_line():
    term = TermFactory(aliases_en="HDFS\n NFS \n\n", aliases_ko="분산 저장소")
    assert term.alias_list("en") == ["HDFS", "NFS"]
    assert term.alias_list("ko") == ["분산 저장소"]


def test_an_organisations_aliases_are_one_a_line_in_each_language():
    org = OrganisationFactory(aliases_en="Facebook\r\n Meta Platforms \n\n", aliases_ko="페이스북")
    assert org.alias_list("en") == ["Facebook", "Meta Platforms"]
    assert org.alias_list("ko") == ["페이스북"]
    assert OrganisationFactory().alias_list("ko") == []  # none given: empty, not [""]
