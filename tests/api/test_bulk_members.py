"""The bulk file as gzip members, one a run of ids: a build after a few changes compresses
again only the runs they touched, and the file is always every public case's line, in id
order, whatever came, changed or went (cases.open_data.write_bulk)."""

import gzip
import hashlib
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases import open_data
from cases.models import BulkBuild, BulkMember, Case, PublishedRecord
from tests.api.test_open_data import own_storage, public_change  # noqa: F401 (a fixture)
from tests.factories import CaseFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def short_runs(monkeypatch):
    monkeypatch.setattr(open_data, "RUN_LENGTH", 4)


@pytest.fixture
def compressions(monkeypatch):
    """The runs each build compresses, as lists of their public ids."""
    made = []
    compress = open_data.compressed

    def counted(using, run):
        made.append([public_id for _pk, public_id, _print in run])
        return compress(using, run)

    monkeypatch.setattr(open_data, "compressed", counted)
    return made


def bulk_file():
    build = BulkBuild.objects.latest()
    with open_data.storage().open(build.name) as file:
        data = file.read()
    return build, data


def expected_text():
    records = PublishedRecord.objects.filter(state=PublishedRecord.State.PUBLISHED)
    return "".join(
        line + "\n" for line in records.order_by("public_id").values_list("line", flat=True)
    )


def test_a_build_after_one_change_compresses_only_that_case_s_run(short_runs, compressions):
    made = [CaseFactory(public_id=f"IL-{n:04d}") for n in range(1, 41)]
    open_data.build()
    assert sum(map(len, compressions)) == 40  # the first build: every run
    members = set(BulkMember.objects.values_list("digest", flat=True))
    compressions.clear()
    public_change(made[16], title_en="A corrected title")
    open_data.build()
    # The finding: the build after one correction read and compressed every case's line
    # again (1.2 s of gzip alone at 10,000 cases, and a pass over 138 MB of lines).
    assert len(compressions) == 1 and "IL-0017" in compressions[0]
    now = set(BulkMember.objects.values_list("digest", flat=True))
    assert len(now - members) == 1 and len(members - now) == 1
    build, data = bulk_file()
    assert gzip.decompress(data).decode() == expected_text()
    assert build.sha256 == hashlib.sha256(data).hexdigest() and build.size == len(data)


def test_a_library_with_no_public_case_is_an_empty_gzip_file():
    CaseFactory(status=Case.Status.DRAFT, published_at=None)
    open_data.build()
    build, data = bulk_file()
    assert gzip.decompress(data) == b"" and build.cases == 0
    assert not BulkMember.objects.exists()


@pytest.mark.skipif(shutil.which("gzip") is None, reason="the gzip program reads it as mirrors do")
def test_the_gzip_program_reads_the_file_of_many_members(short_runs):
    for n in range(1, 30):
        CaseFactory(public_id=f"IL-{n:04d}")
    open_data.build()
    build, data = bulk_file()
    assert BulkMember.objects.count() > 1
    unpacked = subprocess.run(["gzip", "-dc"], input=data, capture_output=True, check=True)
    assert unpacked.stdout.decode() == expected_text()


STEPS = st.lists(
    st.tuples(st.sampled_from(["add", "change", "withdraw", "publish"]), st.integers(1, 60)),
    min_size=1,
    max_size=6,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=STEPS)
def test_the_file_is_every_public_line_in_id_order_whatever_changes(short_runs, steps):
    for action, number in steps:
        public_id = f"IL-{number:04d}"
        case = Case.objects.filter(public_id=public_id, draft_of__isnull=True).first()
        if action == "add" and case is None:
            CaseFactory(public_id=public_id)
        elif case is not None and action == "change":
            public_change(case, title_en=f"Title {number} {len(steps)}")
        elif case is not None and action == "withdraw":
            public_change(case, status=Case.Status.WITHDRAWN)
        elif case is not None and action == "publish":
            public_change(case, status=Case.Status.PUBLISHED)
        open_data.build()
    build, data = bulk_file()
    assert gzip.decompress(data).decode() == expected_text()
    assert build.cases == len(expected_text().splitlines())
    assert build.sha256 == hashlib.sha256(data).hexdigest()
    # Only the members of this file are kept.
    assert BulkMember.objects.count() == len(
        list(
            open_data.runs_of(
                PublishedRecord.objects.filter(state=PublishedRecord.State.PUBLISHED)
                .order_by("public_id")
                .values_list("pk", "public_id", "fingerprint")
            )
        )
    )
