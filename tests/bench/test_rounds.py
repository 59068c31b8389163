from bench.rounds import combined, figures, row, writes_note


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
    assert note.startswith("92 in 90 s, each 110 ms")
    assert note.endswith("at most 260; the writer's own CPU 70 ms a change")
