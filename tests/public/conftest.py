"""A small library for the public pages and the search: four published cases and a draft."""

import datetime

import pytest

from cases.models import Case, Vocabulary
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory, TermFactory, UserFactory


@pytest.fixture
def terms():
    return {
        "dns": TermFactory(
            vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS", label_ko="DNS"
        ),
        "database": TermFactory(
            vocabulary=Vocabulary.COMPONENT,
            slug="application-database",
            label_en="Application database",
            label_ko="애플리케이션 데이터베이스",
        ),
        "storage": TermFactory(
            vocabulary=Vocabulary.COMPONENT,
            slug="shared-filesystem",
            label_en="Shared filesystem",
            label_ko="공유 파일 시스템",
            aliases_en="HDFS\nNFS",
        ),
        "overlap": TermFactory(
            vocabulary=Vocabulary.CONTRIBUTING,
            slug="overlapping-failures",
            label_en="Overlapping failures",
            label_ko="장애 중첩",
        ),
        "bug": TermFactory(
            vocabulary=Vocabulary.ROOT_CAUSE, slug="software-bug", label_en="Software bug"
        ),
    }


@pytest.fixture
def library(terms):
    """Four published cases and one draft, with search text."""
    hf = OrganisationFactory(name="Hugging Face", slug="hugging-face")
    meta = OrganisationFactory(name="Meta", slug="meta")
    cases = {
        "a": CaseFactory(
            public_id="IL-0001",
            org=hf,
            date=datetime.date(2024, 4, 22),
            title_en="Hub outage under heavy API requests",
            title_ko="무거운 API 요청으로 Hub 장애",
            summary_ko="체크포인트를 만들지 못했다.",
            root_cause=terms["bug"],
            with_terms=[terms["database"], terms["overlap"]],
        ),
        "b": CaseFactory(
            public_id="IL-0002",
            org=hf,
            date=datetime.date(2025, 10, 30),
            title_en="Throughput drops in pretraining",
            with_terms=[terms["storage"], terms["overlap"]],
        ),
        "c": CaseFactory(
            public_id="IL-0003",
            org=meta,
            date=datetime.date(2021, 10, 4),
            title_en="BGP withdrawal took the backbone down",
            severity="critical",
            with_terms=[terms["dns"]],
        ),
        "d": CaseFactory(
            public_id="IL-0004",
            org=meta,
            date=datetime.date(2019, 1, 1),
            title_en="Checkpoint writes failed",
            with_terms=[terms["storage"]],
        ),
        "draft": CaseFactory(
            public_id="IL-0005",
            status=Case.Status.DRAFT,
            published_at=None,
            title_en="A draft nobody may see",
            with_terms=[terms["dns"]],
        ),
    }
    refresh_search_text(Case.objects.all())
    return cases


@pytest.fixture
def people():
    """An editor and a reviewer."""
    return UserFactory(role="editor"), UserFactory(role="reviewer")
