import signal
import sys
import time

import pytest

from bench.processes import finish, start_when_ready, stop

# A writer as bench/writer.py behaves with --ready: set up, ready, then waiting for SIGUSR1
# before its measured changes begin.
WRITER = """
import signal, sys, time
from pathlib import Path
time.sleep(0.3)  # (its imports and its first change)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
Path(sys.argv[-1]).touch()
signal.sigwait({signal.SIGUSR1})
print("WRITES {}", time.time(), flush=True)
"""


def test_a_writer_is_started_set_up_and_begins_its_changes_at_the_signal(tmp_path):
    """The finding (#21): the writer's process started with the readers' measure, so each
    measure under writes held a process's start and its first change, seconds of CPU that
    an editors' server running for days does not spend."""
    log = (tmp_path / "log").open("w")
    began = time.monotonic()
    writer = start_when_ready(
        [sys.executable, "-c", WRITER], {}, log, tmp_path / "ready", deadline=30
    )
    try:
        assert time.monotonic() - began >= 0.3  # not before it was set up
        time.sleep(0.3)
        assert writer.poll() is None  # waiting, nothing measured yet
        signalled = time.time()
        writer.send_signal(signal.SIGUSR1)
        output = finish(writer, "the writer", timeout=30)
    finally:
        stop(writer)
        log.close()
    assert output.startswith("WRITES {}")
    assert float(output.split()[-1]) >= signalled


def test_a_writer_that_fails_before_it_is_ready_fails_the_run(tmp_path):
    log = (tmp_path / "log").open("w")
    with pytest.raises(SystemExit, match="failed"):
        start_when_ready(
            [sys.executable, "-c", "import sys; sys.exit(3)"], {}, log, tmp_path / "ready"
        )
    log.close()


# Editors as bench/writer.py makes them, its `work` with a change that takes 50 ms and
# notes when it began.
EDITOR = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from bench.writer import work
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
began = []
def change():
    began.append(time.time())
    time.sleep(0.05)
own, editors = (int(part) for part in args["--share"].split("/"))
summary = work(change, rate=float(args["--rate"]), duration=float(args["--duration"]),
               turn=own / editors, ready=Path(args["--ready"]))
print("WRITES " + json.dumps({{**summary, "began": began[1:]}}), flush=True)
"""


def test_editors_share_the_rate_take_turns_and_work_only_in_their_slices(tmp_path):
    """The finding (#21): one editor at the lowest priority, on a machine the readers
    saturate, made a correction every 1.6 to 2 s, not one a second; two at once, each at
    half the rate, keep the pace."""
    from pathlib import Path

    from bench.processes import Editors

    root = str(Path(__file__).resolve().parents[2])
    log = (tmp_path / "log").open("w")
    args = [sys.executable, "-c", EDITOR.format(root=root), "--duration", "1"]
    editors = Editors(args, {}, log, tmp_path, 2, rate=4.0)  # each 2 a second
    try:
        time.sleep(0.5)
        slices = []
        for _ in range(2):
            begun = time.time()
            editors.begin()
            editors.wait()
            slices.append((begun, time.time()))
            time.sleep(0.5)  # (nothing is made between slices)
        writes = editors.end("the editors")
    finally:
        editors.stop()
        log.close()
    assert [each["changes"] for each in writes] == [4, 4]  # 2 a slice each, 2 slices
    moments = sorted(moment for each in writes for moment in each["began"])
    for moment in moments:
        assert any(start <= moment < end for start, end in slices)
    # Within a slice the two take turns: a change every quarter second, not two at once.
    first = [moment - slices[0][0] for moment in moments if moment < slices[0][1]]
    assert len(first) == 4
    assert [round(offset * 4) for offset in first] == [0, 1, 2, 3]
    assert all(each["seconds"] >= 1.0 for each in writes)


def test_editors_writing_new_cases_at_once_never_take_the_same_id():
    """The finding: two editors with one seed wrote their new cases under the same ids, and
    the second's import of IL-7200001 failed the run."""
    from bench.writer import change_number

    numbers = [
        change_number(seed, number, own, 2)
        for seed in (2, 12, 22)
        for own in (0, 1)
        for number in range(1, 2_000)
    ]
    assert len(set(numbers)) == len(numbers)
    assert min(numbers) > 1_000_000 + 9 * 100_000 + 20_000  # past the imports' ids
