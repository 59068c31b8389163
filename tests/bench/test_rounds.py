from collections import Counter

import pytest

from bench.rounds import combined, figures, percentile, pooled, row, together, writes_note


def measure(rate, p99, *, requests=1000, misses=0, errors=0, slowest=None):
    """The figures of a wrk run of 10 s with these numbers (bench/load.lua's LOAD-RESULT)."""
    return figures(
        {
            "requests": requests,
            "duration_us": int(requests / rate * 1e6),
            "p50_us": 4000,
            "p99_us": int(p99 * 1000),
            "max_us": int((slowest or p99 * 2) * 1000),
            "non_2xx_3xx": errors,
            "connect_errors": 0,
            "read_errors": 0,
            "write_errors": 0,
            "timeouts": 0,
            "cache_hits": requests - misses,
            "cache_misses": misses,
        }
    )


def test_each_write_is_compared_with_the_reads_only_of_its_own_round():
    # The machine's speed drifts from round to round. Against its own round each write
    # kept 90, 95 and 80 % of the reads; the median of the writes against the median of
    # the reads (1,200 of 1,500 requests a second) would say 80 %.
    rounds = [
        (measure(900, 15), measure(1000, 10)),
        (measure(1900, 6), measure(2000, 5)),
        (measure(1200, 16), measure(1500, 8)),
    ]
    result = combined(rounds)
    assert round(result["share"]) == 90
    assert [round(share) for share in result["shares"]] == [80, 95]
    assert round(result["ratio"], 2) == 1.5  # (15 / 8 of the medians: 1.88)


def test_a_row_gives_medians_and_the_spread_of_its_rounds():
    reads = measure(1000, 10)
    rounds = [
        (measure(950, 12, slowest=80), reads),
        (measure(850, 30, slowest=300, misses=10), reads),
        (measure(900, 14, slowest=90, errors=1), reads),
    ]
    result = combined(rounds)
    assert round(result["rate"]) == 900 and result["p99"] == 14
    assert round(result["ratio"], 2) == 1.4
    assert [round(value, 2) for value in result["ratios"]] == [1.2, 3.0]
    assert result["max"] == 300 and result["errors"] == 1 and result["requests"] == 3000
    assert round(result["hits"], 2) == round(100 * 2990 / 3000, 2)
    line = row("broad", "one correction a second", result, "31 in 30 s")
    assert "| 900 % (85–95) |" not in line  # (a share, not a rate)
    assert "| 90 % (85–95) |" in line and "| 1.40× (1.20–3.00) |" in line


def test_a_single_round_shows_no_spread():
    reads = measure(1000, 10)
    line = row("hot set", "reads only", combined([(reads, reads)]), "")
    assert "| 100 % |" in line and "| 1.00× |" in line and "(" not in line


def test_the_writes_of_a_row_add_up_over_its_rounds():
    note = writes_note(
        [
            {"changes": 31, "seconds": 30.1, "median_ms": 100, "max_ms": 170, "cpu_ms": 61},
            {"changes": 30, "seconds": 30.0, "median_ms": 120, "max_ms": 260, "cpu_ms": 90},
            {"changes": 31, "seconds": 30.2, "median_ms": 110, "max_ms": 150, "cpu_ms": 70},
        ]
    )
    assert note.startswith("92 in 90 s (1.02 a second), each 110 ms")
    assert note.endswith("at most 260; the writers' own CPU 70 ms a change")
    assert "below" not in note


def test_a_row_whose_editors_kept_no_pace_of_one_a_second_says_so():
    """The finding (#21): at the lowest priority, on a machine the readers saturate, one
    editor made 92 corrections in 151 s, and the row still read "one correction a second"."""
    note = writes_note(
        [{"changes": 92, "seconds": 151, "median_ms": 1600, "max_ms": 3100, "cpu_ms": 100}]
    )
    assert note.startswith("92 in 151 s (0.61 a second, **below one a second**)")


def test_editors_at_work_at_once_are_counted_together():
    both = together(
        [
            {"changes": 5, "seconds": 10.4, "median_ms": 900, "max_ms": 1500, "cpu_ms": 60},
            {"changes": 4, "seconds": 10.0, "median_ms": 700, "max_ms": 1100, "cpu_ms": 69},
        ]
    )
    # Side by side, not one after the other: nine changes in ten seconds and a bit.
    assert both["changes"] == 9 and both["seconds"] == 10.4
    assert both["median_ms"] == 800 and both["max_ms"] == 1500
    assert both["cpu_ms"] == pytest.approx(64)


def slice_of(latencies, seconds=10.0, hits=None):
    """A wrk run's figures with these answer latencies (milliseconds)."""
    counts = Counter(int(ms * 1000) for ms in latencies)
    return figures(
        {
            "requests": len(latencies),
            "duration_us": int(seconds * 1e6),
            "p50_us": 0,
            "p99_us": 0,
            "max_us": max(counts),
            "non_2xx_3xx": 0,
            "connect_errors": 0,
            "read_errors": 0,
            "write_errors": 0,
            "timeouts": 0,
            "cache_hits": len(latencies) if hits is None else hits,
            "cache_misses": 0 if hits is None else len(latencies) - hits,
            "latencies": sorted(counts.items()),
        }
    )


def test_slices_pooled_count_every_answer_and_take_percentiles_over_all_of_them():
    fast = slice_of([2.0] * 990 + [5.0] * 10)  # alone: p99 2 ms
    slow = slice_of([4.0] * 450 + [50.0] * 50, seconds=10.0, hits=480)  # alone: p99 50 ms
    both = pooled([fast, slow])
    assert both["requests"] == 1500 and both["rate"] == 75.0
    # 60 of 1,500 answers took 5 ms or more: the 1 % slowest are all 50 ms ones; neither
    # the mean of the two p99s (26 ms) nor their median.
    assert both["p99"] == 50.0
    assert both["p50"] == 2.0
    assert both["max"] == 50.0 and both["hits"] == 1480 and both["answered"] == 1500


def test_a_percentile_is_reckoned_as_wrk_reckons_it():
    # wrk's rank is round(p % of the answers + 0.5), C's round: the 991st of 1,000 for 99 %.
    latencies = Counter({1000: 985, 2000: 10, 3000: 5})
    assert percentile(latencies, 99) == 2000
    assert percentile(latencies, 99.6) == 3000
    assert percentile(latencies, 50) == 1000


def test_slices_without_their_latencies_are_not_pooled():
    bare = slice_of([2.0] * 10)
    bare["latencies"] = Counter()
    with pytest.raises(ValueError, match="latencies"):
        pooled([bare, bare])
