"""What corrections cost the readers of searches, in one process: after each of N random
corrections (bench/writer.py's, through the workflow), every distinct search address of
`make load`'s broad walk is asked once through the whole Django stack, and how each was
answered (X-Cache: hit, mended or miss) and how long it took is counted.

Run it on a copy of the database `make load` leaves (it changes the cases it corrects):

    createdb -T incidentlib_load probe
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/probe \
        .venv/bin/python bench/searches_after_corrections.py --corrections 60
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corrections", type=int, default=60)
    parser.add_argument("--seed", type=int, default=5)
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings.bench")
    with tempfile.TemporaryDirectory(prefix="probe-") as folder:
        os.environ.setdefault("BENCH_STATIC_ROOT", folder)
        import django

        django.setup()
        from django.core.cache import cache
        from django.core.management import call_command
        from django.test import Client
        from load import addresses
        from writer import correct, people

        from cases.models import Case

        call_command("collectstatic", "--noinput", verbosity=0)
        paths, _mix, _cases = addresses(os.environ["DATABASE_URL"], 5000)
        searches = sorted({path for path in paths if "q=" in path})
        client = Client(HTTP_HOST="127.0.0.1")
        cache.clear()
        for path in searches:
            client.get(path)
        editor, reviewer = people()
        rng = random.Random(options.seed)
        pks = list(Case.objects.public().live().values_list("pk", flat=True))
        answers = {}
        for n in range(options.corrections):
            correct(Case.objects.get(pk=rng.choice(pks)), 9_000_000 + n, editor, reviewer)
            for path in searches:
                began = time.perf_counter()
                answer = client.get(path)["X-Cache"]
                answers.setdefault(answer, []).append((time.perf_counter() - began) * 1000)
    print(f"{len(searches)} search addresses, each asked after {options.corrections} corrections")
    for answer, took in sorted(answers.items()):
        print(
            f"{answer}: {len(took)} answers, median {statistics.median(took):.1f} ms, "
            f"total {sum(took):.0f} ms, slowest {max(took):.0f} ms"
        )


if __name__ == "__main__":
    main()
