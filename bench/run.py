"""The benchmark behind `make bench`: request times and query counts at 10,000 and 100,000
cases, and the import of 10,000 cases, written to bench/RESULTS.md.

It never touches your data: against PostgreSQL it works in its own database (the name in
DATABASE_URL plus `_bench`, dropped and made anew); against SQLite in var/bench.sqlite3.
Requests go through the whole Django stack in this process (middleware, whitenoise, cache)
with Django's test client; the network is left out, so the figures are the server's own.
"""

import argparse
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
LOAD_SECTION = re.compile(r"<!-- load -->.*?<!-- /load -->\n?", re.S)
sys.path.insert(0, str(ROOT))


def on_database(url, name):
    """`url` with another database; one without a host (`postgresql:///x`) keeps its `//`."""
    parts = urlsplit(url)
    rest = urlunsplit(parts._replace(scheme="", netloc="", path=f"/{name}"))
    return f"{parts.scheme}://{parts.netloc}{rest}"


def vacuum_where_autovacuum_is_off(url):
    """VACUUM ANALYZE the database at `url` if its server's autovacuum is off (these
    machines' PostgreSQL is set so): a production server's would by then have tended what
    earlier rounds wrote, its dead rows and its statistics. Whether it vacuumed."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        if connection.execute("SHOW autovacuum").fetchone()[0] == "on":
            return False
        connection.execute("VACUUM ANALYZE")
    return True


def bench_database_url():
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        name = urlsplit(url).path.lstrip("/") or "incidentlib"
        return on_database(url, f"{name}_bench"), f"{name}_bench", url
    return f"sqlite:///{ROOT / 'var' / 'bench.sqlite3'}", None, None


def reset_database(url, name, admin_url, *, create=True):
    """An empty scratch database (SQLite: no file yet), or none at all with create=False."""
    if name is None:
        Path(urlsplit(url).path).unlink(missing_ok=True)
        return
    import psycopg

    maintenance = on_database(admin_url, "postgres")
    with psycopg.connect(maintenance, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if create:
            connection.execute(f'CREATE DATABASE "{name}"')


def manage(*args, env, timeout=None, root=ROOT):
    """Run a management command (of the code in `root`) quietly; return its seconds."""
    started = time.monotonic()
    subprocess.run(
        [sys.executable, str(root / "manage.py"), *args],
        cwd=root,
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
        timeout=timeout,
    )
    return time.monotonic() - started


def bench_environment(url, static_root):
    return {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "incidentlib.settings.bench",
        "BENCH_STATIC_ROOT": static_root,
    }


def load_library(env, root=ROOT):
    """Schema, static files, taxonomy and the bundled cases, by the code in `root`."""
    manage("migrate", "--noinput", env=env, root=root)
    manage("collectstatic", "--noinput", env=env, root=root)
    manage("load_taxonomy", str(root / "data" / "taxonomy.json"), env=env, root=root)
    manage("import_cases", str(root / "data" / "cases"), env=env, root=root)


def machine():
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "unknown"
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{kib / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return (
        f"{platform.node()}: {os.cpu_count()} cores ({cpu}), {memory} memory, "
        f"{platform.platform()}; {calibration()}"
    )


def calibration():
    """One core's speed at plain Python, so that runs on different machines compare.

    Virtual machines with the same description have differed twofold on these pages.
    """
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for number in range(2_000_000):
            total += number
        best = min(best, time.perf_counter() - started)
    return f"Python adds {2 / best:.0f} million numbers a second on one core"


def forget_searches():
    """Drop the searches this process keeps ranked (cases.catalogue.ranking), as a change
    to the content does, but keep its facet index."""
    try:
        from cases.catalogue.ranking import forget  # and the rankings searches follow
    except ImportError:
        try:
            from cases.catalogue.ranking import kept
        except ImportError:  # code from before searches were kept
            return
        forget = kept.clear
    forget()


def change_a_case(public_id):
    """Change one public case as approving an edit of it does: its severity, so that the
    lists' counts change, and the change recorded as one of that case."""
    from django.db import transaction

    from cases.caching import public_content_changed
    from cases.catalogue.changes import states_before
    from cases.models import Case

    with transaction.atomic():
        case = Case.objects.select_for_update().get(public_id=public_id)
        before = states_before([case.pk])
        case.severity = "low" if case.severity != "low" else "high"
        case.save(update_fields=["severity"])
        public_content_changed(before)


def measure(client, url, repeat, *, cold, changed=False, searched_afresh=False, case=None):
    """(median ms, 95th percentile ms, queries) for one address; `changed`: each request
    the first after a change to the public content (which moves its version), of
    everything, or of the `case` named; `searched_afresh`: each request's search the first
    of its words since the last change (the facet index kept)."""
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from cases.caching import public_content_changed

    def change():
        if case:
            change_a_case(case)
        else:
            public_content_changed()

    times = []
    if not cold:
        client.get(url)  # prime the cache
    for _ in range(repeat):
        if cold:
            cache.clear()
        if changed:
            change()
        if searched_afresh:
            forget_searches()
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{url} answered {response.status_code}")
    if cold:
        cache.clear()
    if changed:
        change()
    if searched_afresh:
        forget_searches()
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    times.sort()
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    return statistics.median(times), p95, len(queries)


TWO_FACETS = "/en/cases/?component=syn-component-1&symptom=syn-symptom-2"


def requests_to_measure(sample_id):
    return [
        ("/healthz (the floor)", "/healthz", False),
        ("static file via whitenoise", "/static/css/site.css", False),
        ("list, unfiltered", "/en/cases/", True),
        ("list, two facets", TWO_FACETS, True),
        # The synthetic texts draw on a small vocabulary: these two words occur in nearly
        # every case, so these searches rank and count the whole library (the worst case).
        ("list, English search (matches ~all)", "/en/cases/?q=database+latency", True),
        ("list, Korean search (matches ~all)", "/ko/cases/?q=데이터베이스", True),
        # Searches that narrow the library down, as readers' searches mostly do (an
        # organisation's name occurs in about 5% of the cases, with 과금 in about 1.5%).
        ("list, English search (narrower)", "/en/cases/?q=hooli", True),
        ("list, Korean search (narrower)", "/ko/cases/?q=hooli+과금", True),
        # Searches no case answers as written: a misspelled name, corrected (two more
        # queries: is it a word of the library, which words are like it); and a word no
        # case has, beside one that narrows (the cases with the most of the words).
        ("list, search with a misspelling (corrected)", "/en/cases/?q=hooly", True),
        ("list, search no case has all words of (partial)", "/en/cases/?q=hooli+zeppelin", True),
        ("case page", f"/en/cases/{sample_id}/", True),
        ("case JSON", f"/en/cases/{sample_id}.json", True),
        ("list JSON", "/en/cases.json?component=syn-component-1", True),
        ("graph JSON", "/en/graph.json?tab=component", True),
    ]


# Each process counts facets from an index of the public content that it builds again on
# its first list after every change (cases.catalogue.facet_index): what that first list costs.
AFTER_A_CHANGE = [
    ("list, unfiltered, first after a change (builds the facet index)", "/en/cases/", False),
    # An approved edit says which case it changed: the index follows that case.
    ("list, unfiltered, first after a case is approved (follows it)", "/en/cases/", True),
    ("list, two facets, first after a case is approved (follows it)", TWO_FACETS, True),
]

# Each process keeps the searches it ranked for the version of the content they were ranked
# in (cases.catalogue.ranking): the rows above repeat a search, these are its first run.
SEARCHED_AFRESH = [
    ("list, English search (matches ~all), its first run", "/en/cases/?q=database+latency"),
    ("list, Korean search (matches ~all), its first run", "/ko/cases/?q=데이터베이스"),
    ("list, English search (narrower), its first run", "/en/cases/?q=hooli"),
    ("list, search with a misspelling (corrected), its first run", "/en/cases/?q=hooly"),
    (
        "list, search no case has all words of (partial), its first run",
        "/en/cases/?q=hooli+zeppelin",
    ),
]

AFTER_IMPORT = [
    ("list, unfiltered, just after the import", "/en/cases/"),
    ("list, English search (matches ~all), just after the import", "/en/cases/?q=database+latency"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default=os.environ.get("BENCH_SIZES", "10000,100000"))
    parser.add_argument("--repeat", type=int, default=int(os.environ.get("BENCH_REPEAT", "15")))
    parser.add_argument("--import-count", type=int, default=10_000)
    parser.add_argument("--output", default=str(ROOT / "bench" / "RESULTS.md"))
    options = parser.parse_args()
    sizes = sorted(int(size) for size in options.sizes.split(","))

    url, name, admin_url = bench_database_url()
    reset_database(url, name, admin_url)
    static_root = tempfile.mkdtemp(prefix="bench-static-")
    env = bench_environment(url, static_root)
    os.environ.update(env)
    load_library(env)

    import django

    django.setup()
    from django.db import connection
    from django.test import Client

    engine = connection.vendor
    if engine == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            engine = f"PostgreSQL {cursor.fetchone()[0]}"
    else:
        engine = f"SQLite {connection.Database.sqlite_version}"

    client = Client()
    rows, generated, first_id = [], 0, 100_000
    for size in sizes:
        seconds = manage(
            "generate_cases",
            "--count",
            str(size - generated),
            "--seed",
            str(size),
            "--first-id",
            str(first_id + generated),
            env=env,
        )
        print(f"generated {size - generated} cases in {seconds:.0f} s", file=sys.stderr)
        generated = size
        connection.close()
        if connection.vendor == "postgresql":
            # A settled database: the import has vacuumed what it wrote and analyzed the
            # columns plans use; autovacuum would in time analyze the rest (the vectors).
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
        for label, path, cacheable in requests_to_measure(f"IL-{first_id + 5}"):
            cold = measure(client, path, options.repeat, cold=True)
            warm = measure(client, path, options.repeat, cold=False) if cacheable else None
            rows.append((size, label, cold, warm))
            print(f"{size:>7} {label:<28} cold {cold[0]:7.1f} ms", file=sys.stderr)
        for label, path in SEARCHED_AFRESH:
            cold = measure(client, path, options.repeat, cold=True, searched_afresh=True)
            rows.append((size, label, cold, None))
            print(f"{size:>7} {label:<28} cold {cold[0]:7.1f} ms", file=sys.stderr)
        for label, path, of_a_case in AFTER_A_CHANGE:
            case = f"IL-{first_id + 5}" if of_a_case else None
            cold = measure(client, path, options.repeat, cold=True, changed=True, case=case)
            rows.append((size, label, cold, None))
            print(f"{size:>7} {label:<28} cold {cold[0]:7.1f} ms", file=sys.stderr)

    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "import.jsonl"
        manage(
            "generate_cases",
            "--count",
            str(options.import_count),
            "--seed",
            "7",
            "--first-id",
            "900000",
            "--output",
            str(file),
            env=env,
        )
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        seconds = manage("import_cases", str(file), env=env)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # The pages readers see next, before autovacuum has come by: the import itself must
    # leave the tables ready (see cases.exchange.importer.mark_rows_visible).
    size = sizes[-1] + options.import_count
    for label, path in AFTER_IMPORT:
        cold = measure(client, path, options.repeat, cold=True)
        rows.append((size, label, cold, None))
        print(f"{size:>7} {label:<28} cold {cold[0]:7.1f} ms", file=sys.stderr)
    import_line = (
        f"Import of {options.import_count:,} cases from JSON Lines into the {sizes[-1]:,}-case "
        f"database: {seconds:.1f} s, {options.import_count / seconds:,.0f} cases/s, peak memory "
        f"{max(peak, before) / 1024:.0f} MiB (largest child process so far)."
    )

    lines = [
        "# Benchmark results",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `make bench` on {machine()}.",
        f"Database: {engine}. Python {platform.python_version()}. Each figure is over "
        f"{options.repeat} requests through the whole Django stack in one process (no network).",
        "Cold: the page cache emptied before every request. Warm: served from the page cache.",
        "The process's facet index (cases.catalogue.facet_index) is built by its first list "
        'after each change and then kept: cold figures are with it built; the rows "first '
        "after a change\" include building it. So is each search's ranking "
        "(cases.catalogue.ranking): cold search rows repeat a search, the rows "
        '"its first run" rank it afresh each time.',
        "",
        "| cases | request | cold median ms | cold p95 ms | queries "
        "| warm median ms | warm p95 ms |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for size, label, cold, warm in rows:
        warm_cells = f"{warm[0]:.1f} | {warm[1]:.1f}" if warm else "– | –"
        lines.append(
            f"| {size:,} | {label} | {cold[0]:.1f} | {cold[1]:.1f} | {cold[2]} | {warm_cells} |"
        )
    lines += ["", import_line, ""]
    # `make load` keeps its own section of the file (bench/load.py); carry it over.
    output = Path(options.output)
    previous = output.read_text(encoding="utf-8") if output.exists() else ""
    load_section = LOAD_SECTION.search(previous)
    if load_section:
        lines += [load_section.group(0).rstrip("\n"), ""]
    output.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
