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
        self.log = log

    def begin(self):
        self.log.append("begin")

    def wait(self):
        self.log.append("wait")


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


def test_each_kind_pools_its_own_slices_and_the_settles_count_for_neither():
    log = []
    editors = Editors(log)
    working = []

    def measure(seconds):
        busy = log[-1:] == ["begin"]
        working.append(busy)
        log.append(f"measure {seconds}")
        if seconds == 7:  # a settle: what the readers do then is no slice's
            return figures_of(1, 999, seconds)
        return figures_of(800 if busy else 1000, 20 if busy else 10, seconds)

    reads, writes = map(
        pooled, interleaved_round(measure, editors, pairs=3, slice_seconds=10, settle_seconds=7)
    )
    assert reads["requests"] == 30_000 and reads["seconds"] == 30
    assert writes["requests"] == 24_000 and writes["rate"] == 800
    assert reads["p99"] == 10 and writes["p99"] == 20 and reads["max"] == 10
    # The editors work through each corrections slice and are done before what follows.
    assert working.count(True) == 3
    assert log.count("begin") == log.count("wait") == 3
    for index, entry in enumerate(log):
        if entry == "begin":
            assert log[index + 1 : index + 3] == ["measure 10", "wait"]
