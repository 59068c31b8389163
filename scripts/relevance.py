"""`make relevance`: the relevance set's figures (hit@1, hit@5, the share of queries with no
result), overall and by kind of query, as a Markdown table for the README.

It never touches your data: it loads the taxonomy, the bundled cases and the test
catalogue (tests/search/relevance) into a scratch database made anew for each run, in
var/relevance-set.sqlite3; or, when DATABASE_URL names PostgreSQL (as for `make bench`), into
the database of that name plus `_relevance` on the same server. The queries go through the
public list with Django's test client, as tests/search/test_relevance.py runs them.

    scripts/relevance.py            the table
    scripts/relevance.py --misses   and every query whose known case is not in the first five
"""

import argparse
import os
import sys
import warnings
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.run import on_database, reset_database  # noqa: E402


def scratch_database():
    """(url, PostgreSQL database name or None, the server's url or None)."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        name = f"{urlsplit(url).path.lstrip('/') or 'incidentlib'}_relevance"
        return on_database(url, name), name, url
    (ROOT / "var").mkdir(exist_ok=True)
    return f"sqlite:///{ROOT / 'var' / 'relevance-set.sqlite3'}", None, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="list the queries missed at 5")
    parser.add_argument(
        "--not-first", action="store_true", help="list the queries whose known case is not first"
    )
    options = parser.parse_args()

    url, name, server = scratch_database()
    reset_database(url, name, server)
    os.environ["DATABASE_URL"] = url
    os.environ["DJANGO_SETTINGS_MODULE"] = "incidentlib.settings.dev"
    os.environ["DEBUG"] = "false"  # no record of every SQL query in memory
    os.environ.setdefault("SECRET_KEY", "relevance-only-key")

    # whitenoise looks for collected static files, which the JSON list does not need.
    warnings.filterwarnings("ignore", "No directory at", UserWarning)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from tests.search.relevance import measure

    call_command("migrate", verbosity=0)
    measure.load_library()
    queries = measure.load_queries()
    outcomes = measure.run(Client(HTTP_HOST="localhost"), queries)

    cases = len(list(measure.BUNDLED.glob("*.json"))) + len(list(measure.CATALOGUE.glob("*.json")))
    print(
        f"Relevance set: {len(queries)} queries over {cases} cases "
        f"({connection.vendor}). hit@k: the share of queries with a known case in the first k.\n"
    )
    print(measure.markdown_table(outcomes))
    if options.misses:
        print("\nMissed at 5:\n")
        print(measure.misses(outcomes) or "(none)")
    if options.not_first:
        print("\nNot first:\n")
        print(measure.misses(outcomes, k=1) or "(none)")


if __name__ == "__main__":
    main()
