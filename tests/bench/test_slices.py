from collections import Counter

from bench.rounds import pooled
from bench.slices import READS, SETTLE, WRITES, interleaved_round, schedule


def test_reads_and_corrections_alternate_and_take_turns_going_first():
    """The finding (#21): a round measured 30 s of reads only and then 30 s of corrections,
    and the machine's speed moved by a quarter between rounds: the two kinds of one round
    met two different machines."""
    order = schedule(4)
    measured = [kind for kind in order if kind != SETTLE]
    assert measured == [READS, WRITES, WRITES, READS, READS, WRITES, WRITES, READS]
    # A drift that makes each slice a little slower than the one before falls on both.
    position = {READS: [], WRITES: []}
    for index, kind in enumerate(measured):
        position[kind].append(index)
    assert sum(position[READS]) == sum(position[WRITES])


def test_reads_only_are_never_measured_straight_after_corrections():
    order = schedule(5)
    assert order[0] == SETTLE  # (after the warming)
    for before, after in zip(order, order[1:], strict=False):
        if before == WRITES:
            assert after == SETTLE


class Editors:
    """processes.Editors as the round drives them: told to begin, then waited for."""

    def __init__(self, log):
        self.log, self.working = log, False

    def begin(self):
        self.log.append("begin")
        self.working = True

    def wait(self):
        self.log.append("wait")
        self.working = False


def figures_of(rate, latency_ms, seconds):
    requests = int(rate * seconds)
    return {
        "rate": rate,
        "p50": latency_ms,
        "p99": latency_ms,
        "max": latency_ms,
        "errors": 0,
        "hits": requests,
        "answered": requests,
        "requests": requests,
        "seconds": seconds,
        "latencies": Counter({int(latency_ms * 1000): requests}),
    }


def test_each_kind_is_measured_in_its_steady_state_and_pools_its_own_slices():
    """The finding: in the broad mix, pages the corrections of a slice had touched were
    still rendered again in the 15 s after it (10 to 29 misses, against 17 to 21 in the
    slice), and would have been counted against reads only had nothing come between; a
    slice of corrections measured from their start counts none of what earlier ones left."""
    log = []
    editors = Editors(log)

    def measure(seconds):
        log.append(f"measure {seconds}" + (" while correcting" if editors.working else ""))
        if seconds == 7:  # a settle: what the readers do then is no slice's
            return figures_of(1, 999, seconds)
        return figures_of(800 if editors.working else 1000, 20 if editors.working else 10, 10)

    reads, writes = map(
        pooled, interleaved_round(measure, editors, pairs=3, slice_seconds=10, settle_seconds=7)
    )
    assert reads["requests"] == 30_000 and reads["seconds"] == 30
    assert writes["requests"] == 24_000 and writes["rate"] == 800
    assert reads["p99"] == 10 and writes["p99"] == 20 and reads["max"] == 10
    assert log.count("begin") == log.count("wait") == 3
    for index, entry in enumerate(log):
        if entry == "begin":  # corrections under way before their slice is measured
            assert log[index + 1 : index + 4] == [
                "measure 7 while correcting",
                "measure 10 while correcting",
                "wait",
            ]
        if entry == "measure 10":  # reads only: never straight after corrections
            assert log[index - 1] in ("measure 7", "measure 10")
