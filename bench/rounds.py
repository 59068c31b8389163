"""The rows of `make load` (bench/load.py), measured in rounds.

Thirty seconds of wrk on a machine it keeps saturated give a p99 that moves by half from one
run to the next, with the same code: one row of each is too few to judge a target such as
"p99 ≤ 1.5× reads only" by. So each round measures reads only and each kind of write, and a
write's throughput and p99 are compared with the reads only of its own round (a machine
whose speed drifts moves both alike). Within a round, reads only and corrections alternate
in slices of a few seconds (bench/slices.py): a slice's figures are pooled with the others
of its kind (`pooled`: every answer counted, percentiles over all their latencies). A row
gives the median of its rounds, and the lowest and highest of them beside it.
"""

import math
import statistics
from collections import Counter


def figures(result):
    """One wrk run's figures, from its LOAD-RESULT line (bench/load.lua), with its
    LOAD-LATENCIES as `latencies` where it gave them."""
    seconds = result["duration_us"] / 1e6
    socket_errors = sum(
        result[key] for key in ("connect_errors", "read_errors", "write_errors", "timeouts")
    )
    return {
        "rate": result["requests"] / seconds,
        "p50": result["p50_us"] / 1000,
        "p99": result["p99_us"] / 1000,
        "max": result["max_us"] / 1000,
        "errors": result["non_2xx_3xx"] + socket_errors,
        "hits": result["cache_hits"],
        "answered": result["cache_hits"] + result["cache_misses"],
        "requests": result["requests"],
        "seconds": seconds,
        "latencies": Counter(dict(result.get("latencies", ()))),
        "background_s": result.get("background_s"),  # (a row measured until it ended)
    }


def percentile(latencies, share):
    """The latency (microseconds) under which `share` % of the answers came, as wrk
    reckons it (stats_percentile), from {microseconds: answers}."""
    total = sum(latencies.values())
    rank = math.floor(share / 100 * total + 0.5 + 0.5)  # (C's round(): halves go up)
    counted = 0
    for microseconds in sorted(latencies):
        counted += latencies[microseconds]
        if counted >= rank:
            return microseconds
    return 0


def pooled(runs):
    """The figures of several wrk runs of one kind, taken as one: every request and second
    counted, the percentiles over all their answers' latencies."""
    if not runs:
        raise ValueError("nothing to pool")
    if len(runs) == 1:
        return runs[0]
    latencies = sum((run["latencies"] for run in runs), Counter())
    if sum(latencies.values()) == 0:
        raise ValueError("runs pooled need their latencies (LOAD-LATENCIES)")
    requests = sum(run["requests"] for run in runs)
    seconds = sum(run["seconds"] for run in runs)
    return {
        "rate": requests / seconds,
        "p50": percentile(latencies, 50) / 1000,
        "p99": percentile(latencies, 99) / 1000,
        "max": max(run["max"] for run in runs),
        "errors": sum(run["errors"] for run in runs),
        "hits": sum(run["hits"] for run in runs),
        "answered": sum(run["answered"] for run in runs),
        "requests": requests,
        "seconds": seconds,
        "latencies": latencies,
    }


def combined(rounds):
    """A row's figures from its rounds, each a pair (what was measured, the reads only it is
    compared with): medians of the rates and latencies, the slowest answer of all, every
    request and error counted, and each round's share of reads only and p99 ratio."""
    if not rounds:
        raise ValueError("a row needs at least one round")
    measured = [each for each, _ in rounds]
    shares = [100 * each["rate"] / reads["rate"] for each, reads in rounds]
    ratios = [each["p99"] / reads["p99"] for each, reads in rounds]
    return {
        "requests": sum(each["requests"] for each in measured),
        "rate": statistics.median(each["rate"] for each in measured),
        "p50": statistics.median(each["p50"] for each in measured),
        "p99": statistics.median(each["p99"] for each in measured),
        "max": max(each["max"] for each in measured),
        "errors": sum(each["errors"] for each in measured),
        "hits": 100
        * sum(each["hits"] for each in measured)
        / max(sum(each["answered"] for each in measured), 1),
        "share": statistics.median(shares),
        "shares": (min(shares), max(shares)),
        "ratio": statistics.median(ratios),
        "ratios": (min(ratios), max(ratios)),
    }


def spread(low, high, form):
    """ " (low–high)" after a median, when the rounds differ."""
    low, high = form.format(low), form.format(high)
    return "" if low == high else f" ({low}–{high})"


def row(mix, phase, row_figures, note):
    """A table row of combined figures."""
    share, ratio = row_figures["share"], row_figures["ratio"]
    return (
        f"| {mix} | {phase} | {row_figures['requests']:,} | {row_figures['rate']:.1f} "
        f"| {share:.0f} %{spread(*row_figures['shares'], '{:.0f}')} "
        f"| {row_figures['p50']:.1f} | {row_figures['p99']:.1f} "
        f"| {ratio:.2f}×{spread(*row_figures['ratios'], '{:.2f}')} "
        f"| {row_figures['max']:.1f} | {row_figures['errors']} | {row_figures['hits']:.0f} % "
        f"| {note} |"
    )


def together(editors):
    """The WRITES of editors who worked at once (bench/writer.py), as one."""
    changes = sum(each["changes"] for each in editors)
    return {
        "changes": changes,
        "seconds": max(each["seconds"] for each in editors),
        "median_ms": statistics.median(each["median_ms"] for each in editors),
        "max_ms": max(each["max_ms"] for each in editors),
        "cpu_ms": sum(each.get("cpu_ms", 0) * each["changes"] for each in editors)
        / max(changes, 1),
    }


def writes_note(writes):
    """What the editors did over a row's rounds: each round's WRITES figures (bench/writer.py,
    `together`). A pace below one change a second is said: the row did not measure the
    load it names."""
    changes = sum(each["changes"] for each in writes)
    seconds = sum(each["seconds"] for each in writes)
    median = statistics.median(each["median_ms"] for each in writes)
    slowest = max(each["max_ms"] for each in writes)
    cpu = statistics.median(each.get("cpu_ms", 0) for each in writes)
    pace = changes / seconds if seconds else 0
    short = "" if pace >= 0.95 else ", **below one a second**"
    return (
        f"{changes} in {seconds:.0f} s ({pace:.2f} a second{short}), each {median:.0f} ms "
        f"(median of the rounds' medians), at most {slowest:.0f}; the writers' own CPU "
        f"{cpu:.0f} ms a change"
    )
