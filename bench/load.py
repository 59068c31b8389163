"""`make load`: the site under concurrent load, through gunicorn and the loopback network.

It never touches your data: it works in its own PostgreSQL database (the name in DATABASE_URL
plus `_load`, dropped and made anew) holding the taxonomy, the bundled cases and --cases
generated ones. gunicorn serves it (incidentlib.settings.bench) on a free port of 127.0.0.1,
and wrk (bench/load.lua) drives it for --duration seconds with --connections clients walking a
list of addresses: case pages and their JSON, the list plain and filtered, its JSON, English
and Korean searches. The figures go into the "Load" section of bench/RESULTS.md, between
<!-- load --> and <!-- /load -->; the rest of that file is left as it is. Any error (a status
other than 2xx/3xx, or a socket error) makes the run fail. Every process it starts is stopped
when it ends, however it ends.
"""

import argparse
import os
import re
import signal
import sys
import tempfile
import urllib.request
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

# bench/run.py, beside this file: the same scratch-database and machine description.
import cpu
import run
from processes import (
    AFTER,
    STEP_TIMEOUT,
    Editors,
    ensure_wrk,
    finish,
    free_port,
    rendered_ahead_of,
    run_wrk,
    serve,
    start,
    stop,
    wait_until_serving,
)
from rounds import combined, figures, pooled, row, together, writes_note
from run import machine, on_database, reset_database, vacuum_where_autovacuum_is_off
from slices import interleaved_round
from walks import HOT_SET, MIX, addresses, hot_set

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "RESULTS.md"
SECTION = re.compile(r"<!-- load -->.*?<!-- /load -->\n?", re.S)


def load_database_url():
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit(
            "make load needs PostgreSQL: DATABASE_URL=postgres://postgres@127.0.0.1:5432/"
            "incidentlib make load (it works in a scratch database of its own, <name>_load)"
        )
    name = (urlsplit(url).path.lstrip("/") or "incidentlib") + "_load"
    return on_database(url, name), name


def manage(*args, env):
    seconds = run.manage(*args, env=env, timeout=STEP_TIMEOUT)
    print(f"manage.py {args[0]}: {seconds:.0f} s", file=sys.stderr)


def server_version(database_url):
    import psycopg

    with psycopg.connect(database_url) as connection:
        return connection.execute("SHOW server_version").fetchone()[0]


def page_cache():
    """Where the workers keep their pages: it decides how often a page is rendered."""
    if os.environ.get("REDIS_URL"):
        return "the page cache in Redis, shared by the workers"
    return "each worker with its own in-memory page cache"


# Seconds readers go on unmeasured after corrections begin and after they end (bench/
# slices.py): in the broad mix each worker asks for a given page about every ten.
SETTLE = {"broad": 15, "hot set": 2}


def settle_for(walk, options):
    return options.settle or SETTLE[walk]


PHASES = {
    "reads": "reads only",
    "corrections": "one correction a second (edit, submit, approve)",
    "new-cases": "one new case a second (write, submit, approve)",
    "import": "during an import of {count:,} cases",
}


def server_workers(threads):
    return "sync workers" if threads == 1 else f"gthread workers of {threads} threads"


def report(rows, spending, *, cases, workers, options, mix, distinct, version, vacuumed):
    total = sum(mix.values())
    shares = ", ".join(f"{kind} {100 * mix[kind] / total:.0f} %" for kind in MIX)
    lines = [
        "<!-- load -->",
        "## Load",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `make load` on {machine()}. "
        f"PostgreSQL {version}, {cases:,} cases to begin with. gunicorn with {workers} "
        f"{server_workers(options.worker_threads)} (`incidentlib.settings.bench`, "
        f"{page_cache()}) on 127.0.0.1; wrk with "
        f"{options.threads} threads and {options.connections} connections over loopback, "
        f"{options.duration} s of each kind a round. Each mix was measured in "
        f"{options.rounds} rounds. A round asks for all its addresses once, then measures "
        f"reads only and corrections in alternating slices of {options.slice} s (reads "
        "first in one pair, corrections first in the next), readers going on unmeasured "
        f"for {settle_note(options)} after corrections begin and after they end, so that "
        "each kind is measured in its steady state (bench/slices.py), and then new "
        "cases. Each kind's slices are pooled: every answer counted, the percentiles "
        "over all of their latencies. Each write is set against its own "
        "round's reads only: a row gives the median of its rounds, and in brackets the "
        "lowest and highest of them where they differ (bench/rounds.py). The imports ran "
        "once, after the rounds, against the median of the reads only."
        + (
            " This server's autovacuum is off, so each round and each import began with "
            "VACUUM ANALYZE, as autovacuum would have tended what the rounds before wrote."
            if vacuumed
            else ""
        ),
        "",
        "| mix | while | requests | requests/s | of reads only | median ms | p99 ms "
        "| p99 / reads only | max ms | errors | page cache hits | writes |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        *rows,
        "",
        f"Broad mix: each connection walks a list of {total:,} addresses ({distinct:,} "
        f"distinct), English and Korean pages alike: {shares}. Hot set: the first {HOT_SET} "
        "distinct addresses of that walk, walked again and again. Corrections: an editor "
        "starts a revision of a random published case, changes its title and summary and "
        "submits it; a reviewer approves it (bench/writer.py). New cases: an editor writes a "
        "case (a published one's content under a new id, another severity) and submits it; a "
        f"reviewer approves it. {options.editors} editors work at once, each at its share "
        "of the rate on its share of the cases, in sessions of their own below the readers' "
        "priority, as the editors' app server runs (incidentlib.wsgi_editors). "
        "The background worker (`manage.py run_worker`, as `make run` starts it) runs beside "
        "the server, below the readers' priority: it sends the editors' emails and rebuilds "
        "the open data a while after changes (`OPEN_DATA_REBUILD_DELAY`, cases.open_data). "
        "The import: `manage.py import_cases` of generated cases in a "
        "session of its own, as `setsid` or systemd would start it, started with the row; "
        f"the row lasts until {AFTER} s after it ends (its commit renews every page), and at "
        "least as long as the others; it grows the library for the rows after it. Errors are "
        "answers other than 2xx/3xx and socket errors; any fails the run.",
        *cpu_tables(spending),
        "<!-- /load -->",
        "",
    ]
    return "\n".join(lines)


def cpu_tables(spending):
    """Where the machine's CPU went in the measured slices of reads only and corrections,
    each mix over all its rounds (bench/cpu.py)."""
    lines = []
    for walk, kinds in spending.items():
        if not all(kinds.values()):
            continue
        totals = {
            kind: (
                sum((Counter(each["cpu"]) for each in measured), Counter()),
                sum(each["seconds"] for each in measured),
                sum(each["requests"] for each in measured),
            )
            for kind, measured in kinds.items()
        }
        lines += [
            "",
            f"Where the CPU went, {walk}, over the measured slices of all rounds: each part's "
            "CPU seconds a second of reads only and of corrections (one a second: the "
            "difference is also its CPU ms a change), and its CPU a request served "
            "(bench/cpu.py). The machine has "
            f"{os.cpu_count()} cores.",
            "",
            cpu.table(totals),
        ]
    return lines


def settle_note(options):
    if options.settle:
        return f"{options.settle} s"
    return " and ".join(f"{seconds} s ({walk})" for walk, seconds in SETTLE.items())


def write_section(section):
    """Replace the Load section of RESULTS.md, or add it at the end; keep everything else."""
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    if SECTION.search(text):
        text = SECTION.sub(lambda _match: section, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section if text else section
    RESULTS.write_text(text, encoding="utf-8")


def warm(base_url, paths, threads=8):
    """Ask for every address of a walk once, so that the page cache holds them all."""
    from concurrent.futures import ThreadPoolExecutor

    def fetch(path):
        with urllib.request.urlopen(base_url + path, timeout=60) as response:
            response.read()

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(fetch, dict.fromkeys(paths)))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=10_000, help="generated cases")
    parser.add_argument("--duration", type=int, default=30, help="seconds of each measure")
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="rounds of reads only and each write, for each mix (bench/rounds.py)",
    )
    parser.add_argument(
        "--slice", type=int, default=10, help="seconds of each slice of reads or corrections"
    )
    parser.add_argument(
        "--settle", type=int, help="seconds unmeasured after corrections (default: by mix)"
    )
    parser.add_argument(
        "--editors", type=int, default=2, help="editors at work at once, sharing the rate"
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1))
    parser.add_argument(
        "--worker-threads", type=int, default=1, help="gunicorn's threads a worker (gthread)"
    )
    parser.add_argument("--addresses", type=int, default=5000, help="length of the walk")
    parser.add_argument("--import-count", type=int, default=20_000, help="cases imported")
    parser.add_argument(
        "--without-import",
        action="store_true",
        help="only the rows of reads and writes, printed (bench/RESULTS.md is left as it is)",
    )
    parser.add_argument(
        "--without-writes",
        action="store_true",
        help="leave out the rows of corrections and new cases (printed, as --without-import)",
    )
    parser.add_argument(
        "--only",
        choices=["broad", "hot", "corrections"],
        action="append",
        default=[],
        help="only the broad mix or the hot set, or only the corrections among the writes "
        "(printed, as --without-import; for probing one row)",
    )
    options = parser.parse_args()
    if options.only:
        options.without_import = True

    ensure_wrk()
    url, name = load_database_url()
    # Stopping by signal runs the clean-up below, as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    server = server_log = writers = worker_log = None
    background = []
    with tempfile.TemporaryDirectory(prefix="load-") as folder:
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "incidentlib.settings.bench",
            "BENCH_STATIC_ROOT": str(Path(folder) / "static"),
        }
        try:
            reset_database(url, name, os.environ["DATABASE_URL"])
            manage("migrate", "--noinput", env=env)
            manage("load_taxonomy", str(ROOT / "data" / "taxonomy.json"), env=env)
            manage("import_cases", str(ROOT / "data" / "cases"), env=env)
            manage("generate_cases", "--count", str(options.cases), env=env)
            imports = []
            for seed in () if options.without_import else (7, 8):  # one for each mix, of new cases
                imports.append(Path(folder) / f"import-{seed}.jsonl")
                manage(
                    "generate_cases",
                    *("--count", str(options.import_count), "--seed", str(seed)),
                    *("--first-id", str(seed * 100_000 + 1_000_000)),
                    *("--output", str(imports[-1])),
                    env=env,
                )
            import psycopg

            with psycopg.connect(url, autocommit=True) as connection:
                connection.execute("VACUUM ANALYZE")
            manage("collectstatic", "--noinput", env=env)
            # Pages a cache shared with an earlier run still holds are of another database.
            manage("shell", "-c", "from django.core.cache import cache; cache.clear()", env=env)
            # The open data as a running site has it: built once, and rebuilt by the worker
            # after changes (OPEN_DATA_REBUILD_DELAY), which runs beside the server.
            manage("shell", "-c", "from cases.open_data import build; build()", env=env)

            paths, mix, cases = addresses(url, options.addresses)
            walks = {"broad": paths, "hot set": hot_set(paths)}
            if "broad" in options.only:
                del walks["hot set"]
            if "hot" in options.only:
                del walks["broad"]
            files = {}
            for walk, walked in walks.items():
                files[walk] = Path(folder) / f"{walk}.txt"
                files[walk].write_text("\n".join(walked) + "\n", encoding="utf-8")

            server_log = Path(folder) / "gunicorn.log"
            port = free_port()
            base_url = f"http://127.0.0.1:{port}"
            with server_log.open("w") as log:
                server = serve(
                    port, env, log, workers=options.workers, threads=options.worker_threads
                )
            wait_until_serving(base_url, server)
            worker_log = Path(folder) / "worker.log"
            manage_py = [sys.executable, str(ROOT / "manage.py")]
            background.append(start([*manage_py, "run_worker"], env, worker_log.open("w")))

            every = []

            def measure(walk):
                def run_for(seconds, until=None):
                    before = cpu.snapshot()
                    result = run_wrk(
                        base_url,
                        files[walk],
                        threads=options.threads,
                        connections=options.connections,
                        duration=seconds,
                        until=until,
                    )
                    every.append({**figures(result), "cpu": cpu.spent(before, cpu.snapshot())})
                    return every[-1]

                return run_for

            def editors(mode, seed, walk):
                """Editors started and set up for this mode, waiting to be told to work."""
                seconds = options.duration
                if mode == "corrections":  # (from the settle before its measured slice)
                    seconds = options.slice + settle_for(walk, options)
                started = Editors(
                    [
                        sys.executable,
                        str(ROOT / "bench" / "writer.py"),
                        *("--mode", mode, "--seed", str(seed)),
                        *("--duration", str(seconds)),
                    ],
                    env,
                    writer_log,
                    folder,
                    options.editors,
                )
                background.extend(started.processes)
                return started

            rows, reads = [], {}
            spending = {walk: {kind: [] for kind in cpu.KINDS} for walk in walks}
            vacuumed = False
            writers = Path(folder) / "writers.log"
            writer_log = writers.open("w")
            modes = () if options.without_writes else ("corrections", "new-cases")
            if "corrections" in options.only:
                modes = ("corrections",)
            for walk_index, walk in enumerate(walks):
                rounds = {phase: [] for phase in ("reads", *modes)}
                writes = {mode: [] for mode in modes}
                for round_number in range(options.rounds):
                    vacuumed = vacuum_where_autovacuum_is_off(url)
                    # Each round from pages cached alike: the new cases of the round before
                    # renewed every list, and its reads only would be made of their misses.
                    warm(base_url, walks[walk])
                    # Each writer its own seed: its new cases' ids differ from all others.
                    seed = 10 * walk_index + 20 * round_number
                    if "corrections" in modes:
                        correcting = editors("corrections", seed + 1, walk)
                        slices = interleaved_round(
                            measure(walk),
                            correcting,
                            pairs=max(1, round(options.duration / options.slice)),
                            slice_seconds=options.slice,
                            settle_seconds=settle_for(walk, options),
                        )
                        for kind, measured in zip(cpu.KINDS, slices, strict=True):
                            spending[walk][kind].extend(measured)
                        alone, result = map(pooled, slices)
                        writes["corrections"].append(together(correcting.end("the editors")))
                        rounds["corrections"].append((result, alone))
                    else:
                        alone = measure(walk)(options.duration)
                    rounds["reads"].append((alone, alone))
                    if "new-cases" in modes:
                        writing = editors("new-cases", seed + 2, walk)
                        writing.begin()
                        result = measure(walk)(options.duration)
                        writing.wait()
                        writes["new-cases"].append(together(writing.end("the editors")))
                        rounds["new-cases"].append((result, alone))
                reads[walk] = combined(rounds["reads"])
                rows.append(row(walk, PHASES["reads"], reads[walk], ""))
                for mode in modes:
                    note = writes_note(writes[mode])
                    rows.append(row(walk, PHASES[mode], combined(rounds[mode]), note))
            for walk, file in zip(walks if imports else (), imports, strict=True):
                vacuumed = vacuum_where_autovacuum_is_off(url)  # (as each round begins)
                warm(base_url, walks[walk])
                importing = start(
                    [*manage_py, "import_cases", str(file)],
                    env,
                    writer_log,
                )
                background.append(importing)
                result = measure(walk)(options.duration, until=importing)
                said = finish(importing, "the import")
                phase = PHASES["import"].format(count=options.import_count)
                note = (
                    f"the import took {result['background_s']:.0f} s; measured until "
                    f"{AFTER} s after it ended; {rendered_ahead_of(said)}"
                )
                rows.append(row(walk, phase, combined([(result, reads[walk])]), note))
            errors = sum(figure["errors"] for figure in every)
            if errors:  # (what the server said of them goes with the folder)
                show_logs(server_log, writers, worker_log)
            section = report(
                rows,
                spending,
                cases=cases,
                workers=options.workers,
                options=options,
                mix=mix,
                distinct=len(set(paths)),
                version=server_version(url),
                vacuumed=vacuumed,
            )
        except BaseException:
            show_logs(server_log, writers, worker_log)
            raise
        finally:
            for process in background:
                stop(process)
            stop(server)
    if not (options.without_import or options.without_writes or options.only):
        write_section(section)
    print(section)
    if errors:
        raise SystemExit(f"{errors} error(s) under load")


def show_logs(*paths, lines=40):
    """The last lines of the run's logs (gunicorn's, the editors' and imports', the
    worker's), to standard error."""
    for path in paths:
        if path and path.exists():
            log = path.read_text(errors="replace").splitlines()
            print(f"{path.name}, last lines:", *log[-lines:], sep="\n", file=sys.stderr)


if __name__ == "__main__":
    main()
