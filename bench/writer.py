"""Editors at work, for `make load` (bench/load.py): one change a second through the
workflow, by two people, in the database that DATABASE_URL names, below the readers'
priority as the editors' app server runs (incidentlib.wsgi_editors).

--mode corrections: an editor starts a revision of a published case, corrects its title
and summary, and submits it; a reviewer approves it, and the correction is public.
--mode new-cases: an editor writes a new case (a copy of a published one's content under a
new id, with another severity), submits it, and a reviewer approves it: a new public case,
which every list counts.

It prints one line, WRITES {json}: how many changes it made, how long they took, and the
CPU its own process spent on each (what it takes from the readers, with what its PostgreSQL
backend spends).

With --ready PATH it first makes one change, unmeasured, as a running editors' server has
long since made its first (a new process's first change costs seconds of CPU: its imports,
its caches, its connection), then creates PATH and waits for SIGUSR1 to begin: make load
starts its readers' measure with that signal, so the measure holds the editors' changes and
not a process starting.
"""

import argparse
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def people():
    from django.contrib.auth.models import Group, User

    from cases.editorial.roles import ROLES

    editor, _ = User.objects.get_or_create(username="load-editor", defaults={"is_staff": True})
    reviewer, _ = User.objects.get_or_create(username="load-reviewer", defaults={"is_staff": True})
    editor.groups.add(Group.objects.get(name=ROLES["editor"]))
    reviewer.groups.add(Group.objects.get(name=ROLES["reviewer"]))
    return editor, reviewer


def correct(case, n, editor, reviewer):
    from cases.editorial import transitions as workflow
    from cases.models import Case

    copy = workflow.case_start_revision(case=case, user=editor)
    Case.objects.filter(pk=copy.pk).update(
        title_en=f"{copy.title_en.split(' (corrected')[0]} (corrected {n})",
        summary_en=f"{copy.summary_en}\n\nCorrected under load ({n}).",
        last_edited_by=editor,
    )
    workflow.case_submit(case=copy, user=editor)
    workflow.case_approve(case=copy, user=reviewer, confirm_stale_korean=True)


def write_new(case, n, editor, reviewer):
    from cases.editorial import transitions as workflow
    from cases.exchange.importer import CaseImporter
    from cases.exchange.reading import Input
    from cases.exchange.serialize import case_to_exchange
    from cases.models import Case

    data = case_to_exchange(Case.objects.for_exchange().get(pk=case.pk))
    data["id"] = f"IL-{n}"  # far past the generated ids
    data["severity"] = random.choice(["low", "medium", "high", "critical"])
    data["related"], data["recurrence_of"] = [], None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "case.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        CaseImporter(
            [Input(str(path), path, json_lines=False)], status=Case.Status.DRAFT, user=editor
        ).run()
    draft = Case.objects.get(public_id=data["id"])
    Case.objects.filter(pk=draft.pk).update(created_by=editor, last_edited_by=editor)
    workflow.case_submit(case=draft, user=editor)
    workflow.case_approve(case=draft, user=reviewer, confirm_stale_korean=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=["corrections", "new-cases"], required=True)
    parser.add_argument("--rate", type=float, default=1.0, help="changes a second")
    parser.add_argument("--duration", type=float, required=True, help="seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ready", type=Path, help="say ready here, then wait for SIGUSR1")
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings.bench")
    import django

    django.setup()
    from django.conf import settings

    from cases.exchange.priority import process_below_readers
    from cases.models import Case

    # As the editors' app server runs (incidentlib.wsgi_editors), in a session of its own.
    process_below_readers(settings.EDITORS_NICENESS)

    editor, reviewer = people()
    rng = random.Random(options.seed)
    pks = list(Case.objects.public().live().values_list("pk", flat=True))
    write = correct if options.mode == "corrections" else write_new

    def change(number):
        case = Case.objects.get(pk=rng.choice(pks))
        write(case, 7_000_000 + options.seed * 100_000 + number, editor, reviewer)

    if options.ready:
        change(0)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})  # (before it can come)
        options.ready.touch()
        signal.sigwait({signal.SIGUSR1})
    took, n = [], 0
    started, cpu_started = time.monotonic(), time.process_time()
    while time.monotonic() - started < options.duration:
        due = started + n / options.rate
        time.sleep(max(0.0, due - time.monotonic()))
        begun = time.monotonic()
        change(n + 1)
        took.append((time.monotonic() - begun) * 1000)
        n += 1
    summary = {
        "changes": n,
        "seconds": time.monotonic() - started,
        "median_ms": statistics.median(took) if took else 0,
        "max_ms": max(took, default=0),
        "cpu_ms": (time.process_time() - cpu_started) * 1000 / max(n, 1),
    }
    print("WRITES " + json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
