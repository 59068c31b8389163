"""A corpus of bad import files, one for each kind of problem the importer reports.

Each entry of tests/bad_imports/ (a file, or a folder imported as one) has a sidecar
`NAME.expected`: the lines that must appear in what the import says. Every import must fail,
with those words, and leave every table of the cases app exactly as it was.
"""

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from cases.models import Case
from tests.library import database_fingerprint, load_bundled_library

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parent / "bad_imports"
ENTRIES = sorted(p.name for p in CORPUS.iterdir() if p.suffix != ".expected")
KNOWN_GAPS = {}  # corpus files the importer still wrongly accepts, with why


@pytest.fixture
def library():
    """The bundled library: bad files reuse its ids, so that a partial import would show."""
    load_bundled_library()


def test_the_corpus_is_complete():
    assert len(ENTRIES) >= 40
    for name in ENTRIES:
        assert (CORPUS / f"{name}.expected").read_text(encoding="utf-8").strip(), name
    assert {p.stem for p in CORPUS.glob("*.expected")} == set(ENTRIES)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[name]))
        if name in KNOWN_GAPS
        else name
        for name in ENTRIES
    ],
)
def test_bad_import_fails_with_its_message_and_writes_nothing(library, monkeypatch, name):
    expected = (CORPUS / f"{name}.expected").read_text(encoding="utf-8").splitlines()
    before = database_fingerprint()
    monkeypatch.chdir(CORPUS)  # messages name the file as given: no absolute paths in them
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.raises(
        CommandError, match=r"^Nothing was imported: \d+ problem\(s\) found\.$"
    ) as e:
        call_command("import_cases", name, stdout=stdout, stderr=stderr)
    said = stderr.getvalue() + str(e.value)
    for line in expected:
        assert line in said, f"{name}: {line!r} not in:\n{said}"
    assert stdout.getvalue() == ""
    assert database_fingerprint() == before


def test_the_good_cases_of_the_mixed_file_import_alone(library, tmp_path):
    # The mixed file's first three cases are good: the bad fourth is what stops them.
    lines = (CORPUS / "good-cases-then-a-bad-one.jsonl").read_text(encoding="utf-8").splitlines()
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    stdout = io.StringIO()
    call_command("import_cases", str(good), stdout=stdout)
    assert "created 2, updated 1" in stdout.getvalue()
    assert Case.objects.get(public_id="IL-1001").summary_en.startswith("Changed by the import")
