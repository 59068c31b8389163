"""`make bench-compare BASE=<commit>`: the pages of `make bench`, cold, against two versions
of the code in turn, so that a machine whose speed drifts slows both alike.

The working tree is one version; BASE, checked out in a temporary git worktree, is the
other. Each gets a scratch database of its own (DATABASE_URL's server, or SQLite), made by
its own code from the same seed, so that each runs on the schema its migrations make (both
run in this virtual environment). Then,
round after round, each version measures every page in a fresh process, the two taking
turns to go first. The table gives, per page, the median of the rounds' medians for each
version and the change; a change inside the spread of the rounds is noise.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import (  # noqa: E402
    bench_database_url,
    bench_environment,
    calibration,
    load_library,
    manage,
    on_database,
    requests_to_measure,
    reset_database,
)

FIRST_ID = 100_000


def scratch_database(side):
    """(DATABASE_URL, name to drop or None) of one version's scratch database."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        _bench_url, bench_name, _admin = bench_database_url()
        name = f"{bench_name.removesuffix('_bench')}_compare_{side}"
        return on_database(url, name), name
    return f"sqlite:///{ROOT / 'var' / f'compare-{side}.sqlite3'}", None


def prepare(code, url, name, size, static_root):
    """Make a version's database with that version's own commands."""
    reset_database(url, name, url)
    env = bench_environment(url, static_root)
    load_library(env, root=code)
    count = ("--count", str(size), "--seed", str(size), "--first-id", str(FIRST_ID))
    manage("generate_cases", *count, env=env, root=code)
    if name is not None:
        import psycopg

        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("VACUUM ANALYZE")


def measure_here(code, repeat):
    """In a fresh process: every page's cold median, in ms, as JSON on stdout."""
    sys.path.insert(0, str(code))  # this version's project, ahead of the working tree's
    os.chdir(code)
    import django

    django.setup()
    from django.test import Client
    from run import measure

    client = Client()
    medians = {}
    for label, path, _cacheable in requests_to_measure(f"IL-{FIRST_ID + 5}"):
        # A fresh process's first request imports modules and compiles templates (and, in
        # the worktree's first round, writes their bytecode): not what is being compared.
        client.get(path)
        medians[label] = measure(client, path, repeat, cold=True)[0]
    print(json.dumps(medians))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", required=True, help="the commit to compare against")
    parser.add_argument("--size", type=int, default=int(os.environ.get("COMPARE_SIZE", 10_000)))
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("COMPARE_ROUNDS", 4)))
    parser.add_argument("--repeat", type=int, default=int(os.environ.get("COMPARE_REPEAT", 9)))
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # internal: a version's folder
    options = parser.parse_args()
    if options.measure:
        measure_here(Path(options.measure), options.repeat)
        return

    base_commit = subprocess.run(
        ["git", "rev-parse", "--short", options.base],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="compare-") as scratch:
        worktree = Path(scratch) / "base"
        subprocess.run(
            ["git", "worktree", "add", "--quiet", "--detach", str(worktree), base_commit],
            cwd=ROOT,
            check=True,
        )
        sides = {"base": worktree, "head": ROOT}
        databases = {side: scratch_database(side) for side in sides}
        try:
            for side, code in sides.items():
                print(f"making the {side} database ({options.size:,} cases)", file=sys.stderr)
                prepare(code, *databases[side], options.size, str(Path(scratch) / side))
            rounds = {side: [] for side in sides}
            for number in range(options.rounds):
                order = list(sides) if number % 2 == 0 else list(reversed(sides))
                for side in order:
                    url, _name = databases[side]
                    output = subprocess.run(
                        [
                            sys.executable,
                            __file__,
                            "--base",
                            base_commit,
                            "--repeat",
                            str(options.repeat),
                            "--measure",
                            str(sides[side]),
                        ],
                        env=bench_environment(url, str(Path(scratch) / side)),
                        check=True,
                        capture_output=True,
                        text=True,
                    ).stdout
                    rounds[side].append(json.loads(output.splitlines()[-1]))
                print(f"round {number + 1} of {options.rounds} done", file=sys.stderr)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT)
            for url, name in databases.values():
                reset_database(url, name, url, create=False)

    print(report(rounds, base_commit, options))


def report(rounds, base_commit, options):
    lines = [
        f"Working tree against {base_commit}, {options.size:,} cases, {options.rounds} rounds "
        f"of {options.repeat} cold requests each; {calibration()}.",
        "",
        f"| request | {base_commit} ms (rounds) | working tree ms (rounds) | change |",
        "|---|---:|---:|---:|",
    ]
    for label in rounds["base"][0]:
        base = [medians[label] for medians in rounds["base"]]
        head = [medians[label] for medians in rounds["head"]]
        before, after = statistics.median(base), statistics.median(head)
        lines.append(
            f"| {label} | {before:.1f} ({min(base):.0f}–{max(base):.0f}) "
            f"| {after:.1f} ({min(head):.0f}–{max(head):.0f}) "
            f"| {(after - before) / before:+.0%} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
