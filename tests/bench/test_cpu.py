import subprocess
import sys
from collections import Counter

import pytest

from bench import cpu


@pytest.mark.parametrize(
    ("command_line", "part"),
    [
        ("gunicorn: worker [incidentlib.wsgi]", "gunicorn"),
        ("/venv/bin/python -m gunicorn incidentlib.wsgi --bind=127.0.0.1:8765", "gunicorn"),
        (
            "postgres: 15/main: postgres incidentlib_load 127.0.0.1(51234) idle",
            "PostgreSQL backends",
        ),
        ("postgres: 15/main: postgres incidentlib_load [local] SELECT", "PostgreSQL backends"),
        ("postgres: 15/main: walwriter", "PostgreSQL background"),
        ("postgres: 15/main: autovacuum worker incidentlib_load", "PostgreSQL autovacuum"),
        ("/usr/bin/redis-server 127.0.0.1:6379", "Redis"),
        ("wrk --threads=2 --connections=8", "wrk"),
        ("/venv/bin/python /work/main/bench/writer.py --mode corrections", "editors"),
        ("/venv/bin/python /work/main/manage.py run_worker", "worker"),
        ("/venv/bin/python /work/main/manage.py db_worker", "worker"),
        ("/usr/bin/python3 bench/load.py", cpu.OTHER),
    ],
)
def test_each_process_is_counted_with_its_part_of_the_site(command_line, part):
    assert cpu.part_of(command_line) == part


def test_a_busy_process_is_charged_to_its_part_and_to_the_machine():
    before = cpu.snapshot()
    # Its command line names the editors' script, so it is counted as an editor.
    busy = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\n"
            "import sys; sys.stdin.read()",
            "bench/writer.py",
        ],
        stdin=subprocess.PIPE,
    )
    try:
        # (it is still running when measured: its time is read from /proc, not lost)
        deadline = 50
        while deadline and cpu.spent(before, cpu.snapshot()).get("editors", 0) < 0.4:
            subprocess.run(["sleep", "0.1"], check=True)
            deadline -= 1
        spent = cpu.spent(before, cpu.snapshot())
    finally:
        busy.communicate(b"")
    assert 0.35 <= spent["editors"] <= 1.5
    assert spent["machine"] >= spent["editors"]
    assert spent[cpu.GONE] >= 0


def test_the_table_tells_what_corrections_cost_a_second_and_a_request():
    kinds = {
        "reads only": (Counter({"gunicorn": 18.0, "machine": 20.0}), 10.0, 10_000),
        "corrections": (
            Counter({"gunicorn": 17.0, "editors": 1.5, "machine": 20.0}),
            10.0,
            8_500,
        ),
    }
    lines = {line.split(" | ")[0]: line for line in cpu.table(kinds).splitlines()}
    # 0.15 CPU s/s more for the editors under corrections: 150 ms a change (one a second).
    assert lines["| editors"] == "| editors | 0.000 | 0.150 | +150 | 0.00 | 0.18 |"
    # gunicorn spent less a second, but more a request: 1.80 ms against 2.00.
    assert lines["| gunicorn"] == "| gunicorn | 1.800 | 1.700 | -100 | 1.80 | 2.00 |"


def test_a_process_that_ends_within_the_slice_is_counted_once_waited_for():
    """wrk runs only within its slice: read from /proc, it would be gone at the end."""
    before = cpu.snapshot()
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass",
        ],
        check=True,
    )
    spent = cpu.spent(before, cpu.snapshot())
    assert spent["wrk"] >= 0.25
