"""The library as data: the bulk file of every public case and the change feed a mirror
follows, both brought up to date by a background task after changes, never by a request.

A build reads what changed since the last one (the PublicChange rows between their
content versions; every case when that is unknown), writes each changed case's line to
its PublishedRecord, marks the ids that left the public withdrawn (or merged,
when merged into another case), and, if anything
changed, writes `cases.jsonl.gz` again from the records: one case a line in the exchange
format, ordered by id. The file is gzip members one after another, each the lines of a
run of about RUN_LENGTH ids, kept (BulkMember) and compressed again only when a line of
its run changed: a build compresses what changed, not every case's line again. The
records' `modified` times are the change feed (/api/v1/changes); the build's time is how
far the feed is complete.
"""

import gzip
import hashlib
import json
import tempfile
from datetime import timedelta

from django.conf import settings
from django.core.files.base import File
from django.core.files.storage import storages
from django.db import connections, router, transaction
from django.db.models import Max, Min
from django.utils import timezone

from cases.exchange.serialize import case_to_exchange
from cases.models import (
    BulkBuild,
    BulkMember,
    Case,
    CaseMerge,
    ContentVersion,
    PublicChange,
    PublishedRecord,
)

BULK_NAME = "cases.jsonl.gz"
READ_BATCH = 500  # cases serialised at a time: memory stays flat at any library size
# gzip's default (9) takes half as long again as 6 for 1 % less (138 MB of lines, 10,000
# generated cases: 1.8 s against 1.2 s).
GZIP_LEVEL = 6
# Builds kept besides the newest (a mirror mid-download keeps its file for a while).
KEEP_BUILDS = 3


def storage():
    return storages["open_data"]


def latest_build(using=None):
    return BulkBuild.objects.using(using or router.db_for_read(BulkBuild)).order_by("-pk").first()


def changed_case_pks(using, since_version, version):
    """The primary keys of the cases changed after `since_version` up to `version`, or
    None when that is not known (a change of everything, or rows since pruned)."""
    if since_version is None:
        return None
    rows = PublicChange.objects.using(using).filter(version__gt=since_version, version__lte=version)
    span = rows.aggregate(first=Min("version"), last=Max("version"))
    if span["first"] is None:
        return set()
    if span["first"] != since_version + 1 or rows.filter(case_id__isnull=True).exists():
        return None
    return set(rows.values_list("case_id", flat=True))


def line_of(case):
    return json.dumps(case_to_exchange(case, public=True), ensure_ascii=False, sort_keys=True)


def fingerprint(line):
    return hashlib.sha256(line.encode()).hexdigest()


def build(using="default"):
    """Bring the records and the bulk file up to the current content version; the new
    BulkBuild, or None when nothing changed since the last build."""
    with transaction.atomic(using=using):
        one_build_at_a_time(using)
        last = BulkBuild.objects.using(using).order_by("-pk").first()
        version = ContentVersion.current(using)
        if last is not None and last.version == version:
            return None
        now = timezone.now()
        pks = changed_case_pks(using, last.version if last else None, version)
        changed = follow(using, pks, now)
        if last is not None and not changed:
            last.version = version
            last.built_at = now
            last.save(update_fields=["version", "built_at"])
            return last
        return write_bulk(using, version, now)


# An advisory lock's key: any number of our own (cases.exchange.locking has the import's).
BUILD_LOCK_KEY = 0x1B_0DA7A


def one_build_at_a_time(using):
    """Wait for any other build to commit (PostgreSQL: an advisory lock for the
    transaction, which no public writer takes; SQLite lets one writer in at a time)."""
    connection = connections[using]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [BUILD_LOCK_KEY])


def follow(using, pks, now):
    """Update the records of the cases with these primary keys (every case's if None);
    how many records changed. Written in batches: a first build writes every case."""
    cases = Case.objects.using(using).filter(draft_of__isnull=True)
    records = PublishedRecord.objects.using(using)
    if pks is not None:
        cases = cases.filter(pk__in=pks)
        records = records.filter(case_pk__in=pks)
    known = {record.case_pk: record for record in records}
    changed, pending, seen_public = 0, [], set()
    public = cases.public().for_exchange().order_by("pk")
    last_pk = 0
    while batch := list(public.filter(pk__gt=last_pk)[:READ_BATCH]):
        last_pk = batch[-1].pk
        for case in batch:
            seen_public.add(case.pk)
            if (record := kept(using, known.get(case.pk), case, now)) is not None:
                pending.append(record)
        if len(pending) >= READ_BATCH:
            changed += save(using, pending)
            pending = []
    leaving = [
        record
        for case_pk, record in known.items()
        if case_pk not in seen_public and record.state == PublishedRecord.State.PUBLISHED
    ]
    merged = set(
        CaseMerge.objects.using(using)
        .filter(absorbed__in=[record.case_pk for record in leaving])
        .values_list("absorbed", flat=True)
    )
    for record in leaving:
        State = PublishedRecord.State
        record.state = State.MERGED if record.case_pk in merged else State.WITHDRAWN
        record.line, record.modified = "", now
        record.fingerprint = fingerprint("")
        pending.append(record)
    return changed + save(using, pending)


RECORD_FIELDS = ["case_pk", "state", "modified", "published", "fingerprint", "line"]


def save(using, records):
    """Write records: new ones inserted, known ones updated, in batches; how many."""
    objects = PublishedRecord.objects.using(using)
    known = [record for record in records if record.pk]
    objects.bulk_create([r for r in records if r.pk is None], batch_size=READ_BATCH)
    objects.bulk_update(known, RECORD_FIELDS, batch_size=READ_BATCH)
    return len(records)


def kept(using, record, case, now):
    """The record of a public case with its line as it is now, if that changed it."""
    line = line_of(case)
    digest = fingerprint(line)
    if record is None:
        # An id published again after its record was removed, or a case that took over an
        # id (its old row deleted): the id's record is one, whoever holds it now.
        record = PublishedRecord.objects.using(using).filter(public_id=case.public_id).first()
    if record is not None and record.fingerprint == digest and record.case_pk == case.pk:
        return None
    record = record or PublishedRecord(public_id=case.public_id)
    record.case_pk, record.state = case.pk, PublishedRecord.State.PUBLISHED
    record.modified, record.published = now, case.published_at
    record.fingerprint, record.line = digest, line
    return record


# A run of the bulk file's lines ends after an id whose hash is 0 modulo this: about so
# many lines a run, wherever ids come or go (a new id splits or joins only its own run).
# Shorter runs, less compressed again after changes; longer, a smaller file (each member
# compresses alone). At 10,000 generated cases, a build after 60 corrections took 0.5,
# 0.8 and 1.0 s of CPU at 16, 32 and 64 (1.8 s as one member), for a file 25, 14 and 7 %
# larger (5.1 MB as one).
RUN_LENGTH = 32
MEMBERS_READ = 64  # members read at a time as the file is written


def ends_a_run(public_id):
    return int(hashlib.sha256(public_id.encode()).hexdigest()[:8], 16) % RUN_LENGTH == 0


def runs_of(records):
    """The published records' (pk, public_id, fingerprint), in the file's order, cut
    into runs."""
    run = []
    for record in records:
        run.append(record)
        if ends_a_run(record[1]):
            yield run
            run = []
    if run:
        yield run


def run_digest(run):
    listed = "".join(f"{public_id} {print_}\n" for _pk, public_id, print_ in run)
    return hashlib.sha256(listed.encode()).hexdigest()


def compressed(using, run):
    """A run's lines as one gzip member (mtime fixed: the same lines, the same bytes)."""
    lines = dict(
        PublishedRecord.objects.using(using)
        .filter(pk__in=[pk for pk, _id, _print in run])
        .values_list("pk", "line")
    )
    text = "".join(lines[pk] + "\n" for pk, _id, _print in run)
    return gzip.compress(text.encode(), compresslevel=GZIP_LEVEL, mtime=0)


def bring_members_up_to_date(using):
    """The digests of the bulk file's members in its order, and how many cases it holds:
    the runs whose lines changed compressed again, members no run has any more dropped."""
    published = (
        PublishedRecord.objects.using(using)
        .filter(state=PublishedRecord.State.PUBLISHED)
        .order_by("public_id")
        .values_list("pk", "public_id", "fingerprint")
    )
    runs = list(runs_of(published.iterator(chunk_size=READ_BATCH * 10)))
    digests = [run_digest(run) for run in runs]
    members = BulkMember.objects.using(using)
    known = set(members.filter(digest__in=digests).values_list("digest", flat=True))
    for digest, run in zip(digests, runs, strict=True):
        if digest not in known:
            members.create(digest=digest, cases=len(run), data=compressed(using, run))
            known.add(digest)
    members.exclude(digest__in=digests).delete()
    return digests, sum(len(run) for run in runs)


def write_bulk(using, version, now):
    """Write the bulk file from the published records, one gzip member a run; the
    BulkBuild that names it."""
    digests, count = bring_members_up_to_date(using)
    members = BulkMember.objects.using(using)
    digest = hashlib.sha256()
    with tempfile.TemporaryFile() as raw:
        for first in range(0, len(digests), MEMBERS_READ):
            wanted = digests[first : first + MEMBERS_READ]
            data = dict(members.filter(digest__in=wanted).values_list("digest", "data"))
            for each in wanted:
                raw.write(data[each])
                digest.update(data[each])
        if not digests:  # (an empty file is no gzip: an empty member)
            empty = gzip.compress(b"", mtime=0)
            raw.write(empty)
            digest.update(empty)
        size = raw.tell()
        raw.seek(0)
        name = storage().save(f"builds/{now:%Y%m%dT%H%M%S%f}-{BULK_NAME}", File(raw))
    built = BulkBuild.objects.using(using).create(
        version=version,
        built_at=now,
        name=name,
        sha256=digest.hexdigest(),
        size=size,
        cases=count,
    )
    for old in BulkBuild.objects.using(using).order_by("-pk")[KEEP_BUILDS + 1 :]:
        transaction.on_commit(lambda name=old.name: storage().delete(name), using=using)
        old.delete()
    return built


def rebuild_soon():
    """After a commit that changed the public content: a build in a little while (the
    changes of the next seconds wait for the same one), unless one is already waiting."""
    if not settings.OPEN_DATA_REBUILD:
        return
    from django.tasks import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    from cases.tasks import rebuild_open_data

    waiting = DBTaskResult.objects.filter(
        task_path=rebuild_open_data.module_path, status=TaskResultStatus.READY
    )
    if waiting.exists():
        return
    delay = timedelta(seconds=settings.OPEN_DATA_REBUILD_DELAY)
    rebuild_open_data.using(run_after=timezone.now() + delay).enqueue()
