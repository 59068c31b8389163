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
