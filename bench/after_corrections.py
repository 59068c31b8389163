"""What corrections cost the readers, in one process: after each of N random corrections
(bench/writer.py's, through the workflow), each page of a set of `make load`'s addresses
is asked once through the whole Django stack, and how each was answered (X-Cache: hit,
mended or miss) and how long it took is counted; then each is asked again, a hit at the
version it was just found good at. The difference is what a change costs one app server's
process over those pages (each of gunicorn's workers pays it).

    --pages searches   the broad walk's distinct search addresses (the default)
    --pages hot        make load's hot set: the walk's first 80 distinct addresses
    --pages broad      the walk's first 400 distinct addresses

Run it on a copy of the database `make load` leaves (it changes the cases it corrects):

    createdb -T incidentlib_load probe
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/probe \
        .venv/bin/python bench/after_corrections.py --pages hot --corrections 40

With --profile, the first asks and the asks again run under cProfile, each in a profile of
its own, and the functions whose time differs the most between the two are printed: where a
change's cost goes.
"""

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
BROAD_PAGES = 400


def pages_of(kind, paths):
    from walks import hot_set

    if kind == "hot":
        return hot_set(paths)
    distinct = list(dict.fromkeys(paths))
    if kind == "broad":
        return distinct[:BROAD_PAGES]
    return sorted({path for path in distinct if "q=" in path})


@contextmanager
def profiled(profiles, which):
    if profiles:
        profiles[which].enable()
    try:
        yield
    finally:
        if profiles:
            profiles[which].disable()


def print_difference(first, again, rows=40):
    """The functions whose cumulative time the first asks after a change spent most over
    the asks again (profiling slows both alike)."""
    before = pstats.Stats(again).stats
    differences = []
    for function, (_calls, count, own, cumulative, _callers) in pstats.Stats(first).stats.items():
        _c, count_again, own_again, cumulative_again, _ = before.get(function, (0, 0, 0, 0, 0))
        differences.append(
            (cumulative - cumulative_again, own - own_again, count - count_again, function)
        )
    print("cumulative ms more, own ms more, calls more: function")
    for cumulative, own, count, (file, line, name) in sorted(differences, reverse=True)[:rows]:
        where = file.split("site-packages/")[-1].removeprefix(str(ROOT) + "/")
        print(f"{cumulative * 1000:8.0f} {own * 1000:8.0f} {count:8d}  {where}:{line}({name})")


def timed(client, path):
    began = time.perf_counter()
    answer = client.get(path)["X-Cache"]
    return answer, (time.perf_counter() - began) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", choices=["searches", "hot", "broad"], default="searches")
    parser.add_argument("--corrections", type=int, default=60)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings.bench")
    with tempfile.TemporaryDirectory(prefix="probe-") as folder:
        os.environ.setdefault("BENCH_STATIC_ROOT", folder)
        import django

        django.setup()
        from django.core.cache import cache
        from django.core.management import call_command
        from django.test import Client
        from walks import addresses
        from writer import correct, people

        from cases.models import Case

        call_command("collectstatic", "--noinput", verbosity=0)
        paths, _mix, _cases = addresses(os.environ["DATABASE_URL"], 5000)
        pages = pages_of(options.pages, paths)
        client = Client(HTTP_HOST="127.0.0.1")
        cache.clear()
        for path in pages:
            client.get(path)
        editor, reviewer = people()
        rng = random.Random(options.seed)
        pks = list(Case.objects.public().live().values_list("pk", flat=True))
        first, again = {}, []
        profiles = (cProfile.Profile(), cProfile.Profile()) if options.profile else None
        for n in range(options.corrections):
            correct(Case.objects.get(pk=rng.choice(pks)), 9_000_000 + n, editor, reviewer)
            with profiled(profiles, 0):
                for path in pages:
                    answer, took = timed(client, path)
                    first.setdefault(answer, []).append(took)
            with profiled(profiles, 1):
                again += [timed(client, path)[1] for path in pages]
    print(f"{len(pages)} addresses ({options.pages}), after {options.corrections} corrections")
    for answer, took in sorted(first.items()):
        print(
            f"first after a change, {answer}: {len(took)} answers, median "
            f"{statistics.median(took):.2f} ms, total {sum(took):.0f} ms, "
            f"slowest {max(took):.0f} ms"
        )
    spent = sum(sum(took) for took in first.values())
    print(
        f"asked again: median {statistics.median(again):.2f} ms, total {sum(again):.0f} ms; "
        f"a change costs this process {(spent - sum(again)) / options.corrections:.1f} ms "
        "over these pages"
    )
    if profiles:
        print_difference(*profiles)


if __name__ == "__main__":
    main()
