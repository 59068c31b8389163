"""What a process that only burns CPU beside the server costs the readers: the hot set of
`make load` served by gunicorn, in pairs of slices with and without a co-runner that spends
--burn CPU seconds a second at the editors' priority (EDITORS_NICENESS), touching a heap of
some size as an editors' process does, and asking nothing of the database or the cache.

Under one correction a second the readers lose more than the editors' CPU: this tells how
much of that any co-runner of that size costs on this machine, and so how much is left to
the work a change makes for the readers. It reads the database DATABASE_URL names and
changes nothing in it (`make load` leaves one: DATABASE_URL=..._load).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/incidentlib_load \
        .venv/bin/python bench/co_runner.py --burn 0.1 --pairs 4
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import cpu
from processes import free_port, run_wrk, serve, stop, wait_until_serving
from rounds import figures
from walks import addresses, hot_set

ROOT = Path(__file__).resolve().parent.parent

# In a session of its own, lowered as process_below_readers lowers the editors' (under
# autogroup the kernel shares the CPU between sessions first, whatever a process's niceness).
BURNER = """
import os, sys, time
niceness = int(sys.argv[2])
os.nice(niceness)
try:
    with open("/proc/self/autogroup", "w") as autogroup:
        autogroup.write(str(niceness))
except OSError:
    pass
if sys.argv[3] == "batch":  # (no preempting a reader as it wakes)
    os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
heap = [list(range(1000)) for _ in range(5_000)]  # (some 180 MB of objects)
print("ready", flush=True)
burn, index = float(sys.argv[1]), 0
while True:
    began = time.process_time()
    while time.process_time() - began < burn:
        total = 0
        for row in heap[index % 5_000 : index % 5_000 + 200]:
            total += row[index % 1000]
        index += 200
    time.sleep(max(0.0, 1 - burn))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--burn", type=float, default=0.1, help="CPU seconds a second")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--duration", type=int, default=10, help="seconds of each slice")
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1))
    parser.add_argument(
        "--policy",
        choices=["normal", "batch"],
        default="normal",
        help="the co-runner's scheduling policy (SCHED_OTHER or SCHED_BATCH)",
    )
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings.bench")
    sys.path.insert(0, str(ROOT))
    from django.conf import settings

    niceness = settings.EDITORS_NICENESS
    paths, _mix, _cases = addresses(os.environ["DATABASE_URL"], 5000)
    hot = hot_set(paths)
    with tempfile.TemporaryDirectory(prefix="co-runner-") as folder:
        walk = Path(folder) / "hot.txt"
        walk.write_text("\n".join(hot) + "\n", encoding="utf-8")
        env = {**os.environ, "BENCH_STATIC_ROOT": str(Path(folder) / "static")}
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run([*manage, "collectstatic", "--noinput", "-v0"], env=env, check=True)
        port = free_port(8777)
        base_url = f"http://127.0.0.1:{port}"
        server = serve(port, env, subprocess.DEVNULL, workers=options.workers)
        pairs = []
        try:
            wait_until_serving(base_url, server)
            for path in hot:
                urllib.request.urlopen(base_url + path).read()

            def measure(burning):
                burner = None
                if burning:
                    burner = subprocess.Popen(
                        [
                            *(sys.executable, "-c", BURNER),
                            *(str(options.burn), str(niceness), options.policy),
                        ],
                        start_new_session=True,
                        stdout=subprocess.PIPE,
                        text=True,
                    )
                    burner.stdout.readline()  # (its heap made: that is not measured)
                    time.sleep(1)
                try:
                    before = cpu.snapshot()
                    result = figures(
                        run_wrk(base_url, walk, threads=2, connections=8, duration=options.duration)
                    )
                    spent = cpu.spent(before, cpu.snapshot())
                finally:
                    if burner:
                        burner.kill()
                        burner.wait()
                return result["rate"], result["p99"], spent["gunicorn"] / result["requests"]

            measure(False)  # (unmeasured: the workers' first asks)
            for index in range(options.pairs):
                # Either first in turn, as make load's slices: a drift falls on both.
                order = (False, True) if index % 2 == 0 else (True, False)
                measured = dict(zip(order, map(measure, order), strict=True))
                pairs.append((measured[False], measured[True]))
        finally:
            stop(server)
    print(
        "| pair | alone, requests/s | with the co-runner | share | p99 ratio | gunicorn "
        "ms a request, alone / with |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for index, (alone, burning) in enumerate(pairs, 1):
        print(
            f"| {index} | {alone[0]:.0f} | {burning[0]:.0f} | {100 * burning[0] / alone[0]:.0f} % "
            f"| {burning[1] / alone[1]:.2f}× | {1000 * alone[2]:.2f} / {1000 * burning[2]:.2f} |"
        )


if __name__ == "__main__":
    main()
