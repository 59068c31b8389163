"""Two imports at once: the second waits for the first, then finds its cases already there.
Neither prints a traceback, and every case is in the database once."""

import subprocess
import sys

import pytest

from cases.models import Case
from tests.conftest import REPO
from tests.library import PATIENCE, manage, subprocess_env

CASES = 1500


@pytest.mark.django_db(transaction=True)
def test_two_imports_of_the_same_new_cases_at_once(tmp_path):
    path = tmp_path / "cases.jsonl"
    made = manage("generate_cases", "--count", str(CASES), "--output", str(path))
    assert made.returncode == 0, made.stderr
    command = [sys.executable, "manage.py", "import_cases", str(path)]
    runs = [
        subprocess.Popen(
            command,
            cwd=REPO,
            env=subprocess_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=PATIENCE) for run in runs]
    results = [(run.returncode, out, err) for run, (out, err) in zip(runs, outputs, strict=True)]
    for code, _out, err in results:
        assert "Traceback" not in err, err
        assert code == 0, err
    summaries = sorted(out.strip().splitlines()[-1] for _code, out, _err in results)
    assert summaries == [
        f"created 0, updated 0, unchanged {CASES}, skipped 0",
        f"created {CASES}, updated 0, unchanged 0, skipped 0",
    ]
    assert Case.objects.count() == CASES
