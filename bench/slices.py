"""Reads only and corrections in alternating slices, within each round of `make load`.

On a machine whose speed drifts from one half-minute to the next, thirty seconds of reads
only and then thirty of corrections compare two different machines: in one run the broad
mix's reads only alone moved from 803 to 1,130 requests a second between rounds. Slices of
ten seconds, alternating, put both kinds on the same machine, and the order alternates too
(reads first in one pair, corrections first in the next), so that a drift inside a round
falls on both alike.

Corrections leave work behind them: each worker checks each page it serves against the
changes made since it last served it, and renders again the pages a change touched. In the
hot set that is done within a second; in the broad mix a worker asks for a given page every
ten seconds or so. So readers go on unmeasured for a while (the settle) after corrections
begin, before their slice is measured, and again after they end, before reads only are
measured (and after the pages are warmed as a round begins): each kind is measured in its
steady state, corrections with the work they leave as much as with the work they found,
and reads only with none.
"""

READS, WRITES, SETTLE = "reads", "writes", "settle"


def schedule(pairs):
    """The slices of a round with `pairs` pairs of reads only and corrections."""
    order = [SETTLE]  # (after the warming: each worker's own checks)
    for index in range(pairs):
        order += [READS, WRITES, SETTLE] if index % 2 == 0 else [WRITES, SETTLE, READS]
    return order


def interleaved_round(measure, editors, *, pairs, slice_seconds, settle_seconds):
    """(reads only, under corrections): the figures of each kind's slices, to be pooled
    (rounds.pooled). `measure(seconds)` runs the readers for so long and gives their
    figures; `editors` (processes.Editors) make corrections from a settle before each
    writes slice to its end, and are waited for before anything follows (a change that
    runs past its slice is measured by neither kind)."""
    reads, writes = [], []
    for kind in schedule(pairs):
        if kind == SETTLE:
            measure(settle_seconds)
        elif kind == READS:
            reads.append(measure(slice_seconds))
        else:
            editors.begin()
            measure(settle_seconds)
            writes.append(measure(slice_seconds))
            editors.wait()
    return reads, writes
