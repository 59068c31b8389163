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
its caches, its connection), then creates PATH and waits: each SIGUSR1 begins a slice of
--duration seconds of changes, after which it creates PATH again (make load removes it as
it signals, and starts a readers' measure with the slice); SIGUSR2 ends it. So the measures
hold the editors' changes and not a process starting.

`make load` runs two at once, each at half the rate on its half of the cases (--share).
Each leads a session of its own (make load starts it so, as systemd or `setsid` start the
editors' app server), and lowers that session as the server does: at EDITORS_NICENESS 19,
when readers took every core, a correction took 3.3 s, where the same editor with its session
set back to 0 took 136 ms (bench/RESULTS.md, "Editors' sessions at 10"); hence the default 10.
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


def change_number(seed, number, own, editors):
    """The number of an editor's `number`th change (a new case's id, a correction's mark):
    its own among every other editor's at work at once, and those of other seeds, far past
    the generated cases' ids."""
    return 7_000_000 + seed * 100_000 + number * editors + own


def work(change, *, rate, duration, turn=0.0, ready=None):
    """Make changes (`change()`) at `rate` a second for `duration` seconds, the first
    `turn` of an interval late (editors at work at once take turns); with `ready`, first
    one change, then a slice of them at each SIGUSR1 until SIGUSR2 (see above). What they
    took, as WRITES gives it."""
    took, spans, cpu = [], [], 0.0

    def slice_of_changes():
        nonlocal cpu
        started, cpu_started, made = time.monotonic(), time.process_time(), 0
        while True:
            due = started + (made + turn) / rate
            # None is begun after the slice: the readers' measure has ended.
            if due - started >= duration or time.monotonic() - started >= duration:
                break
            time.sleep(max(0.0, due - time.monotonic()))
            begun = time.monotonic()
            change()
            took.append((time.monotonic() - begun) * 1000)
            made += 1
        spans.append(max(duration, time.monotonic() - started))
        cpu += time.process_time() - cpu_started

    if ready:
        change()
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGUSR2})
        ready.touch()  # (only once they are blocked: none is lost)
        while signal.sigwait({signal.SIGUSR1, signal.SIGUSR2}) == signal.SIGUSR1:
            slice_of_changes()
            ready.touch()
    else:
        slice_of_changes()
    return {
        "changes": len(took),
        "seconds": sum(spans),
        "median_ms": statistics.median(took) if took else 0,
        "max_ms": max(took, default=0),
        "cpu_ms": cpu * 1000 / max(len(took), 1),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=["corrections", "new-cases"], required=True)
    parser.add_argument("--rate", type=float, default=1.0, help="changes a second")
    parser.add_argument("--duration", type=float, required=True, help="seconds of each slice")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--share",
        default="0/1",
        help="K/N: one of N editors working at once, each on its own Nth of the cases",
    )
    parser.add_argument("--ready", type=Path, help="say ready here, then wait for SIGUSR1")
    options = parser.parse_args()
    own, editors = (int(part) for part in options.share.split("/"))
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
    pks = list(Case.objects.public().live().order_by("pk").values_list("pk", flat=True))
    pks = pks[own::editors]  # (two editors never wait for each other's lock)
    write = correct if options.mode == "corrections" else write_new
    number = 0

    def change():
        nonlocal number
        number += 1
        case = Case.objects.get(pk=rng.choice(pks))
        write(case, change_number(options.seed, number, own, editors), editor, reviewer)

    summary = work(
        change,
        rate=options.rate,
        duration=options.duration,
        turn=own / editors,
        ready=options.ready,
    )
    print("WRITES " + json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
