"""The library as data for mirrors: what each id last was in public, and each bulk file
built (cases.open_data)."""

from django.db import models


class PublishedRecord(models.Model):
    """An id the public has seen: its exchange-format line while it is public, and when
    that last changed. An id that leaves the public (withdrawn, reopened as a draft,
    deleted) stays, marked withdrawn, so a mirror following the change feed drops it."""

    class State(models.TextChoices):
        PUBLISHED = "published"
        WITHDRAWN = "withdrawn"
        # Absorbed into another case as its duplicate: a mirror drops it, and may follow
        # the case's own API address (301) to the survivor.
        MERGED = "merged"

    public_id = models.CharField(max_length=20, unique=True)
    # The case row it was last read from; not a foreign key: a deleted case leaves its record.
    case_pk = models.IntegerField(db_index=True)
    state = models.CharField(max_length=10, choices=State.choices)
    # When what the public sees of it last changed, as the build that noticed it saw it.
    modified = models.DateTimeField()
    published = models.DateTimeField(null=True, blank=True)
    # A hash of `line`: a new line that hashes the same is no change.
    fingerprint = models.CharField(max_length=64)
    line = models.TextField(blank=True)  # the case as one line of cases.jsonl; "" when gone

    class Meta:
        indexes = [models.Index(fields=["modified", "public_id"], name="published_record_modified")]

    def __str__(self):
        return f"{self.public_id}: {self.state} {self.modified:%Y-%m-%d %H:%M}"


class BulkBuild(models.Model):
    """One build of the bulk file: what content version it holds and the file's digest.
    The change feed is complete up to the newest build's time."""

    version = models.PositiveBigIntegerField()
    built_at = models.DateTimeField()
    name = models.CharField(max_length=200)  # the file in the open-data storage
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()
    cases = models.PositiveIntegerField()

    class Meta:
        get_latest_by = "built_at"

    def __str__(self):
        return f"{self.name} at {self.built_at:%Y-%m-%d %H:%M}"


class BulkMember(models.Model):
    """The lines of a run of consecutive public ids, compressed as one gzip member of the
    bulk file, kept for the next build. The file is its members one after another (gzip
    allows a file of many members, and readers decompress them as one stream), so a build
    compresses again only the runs whose lines changed (cases.open_data.write_bulk)."""

    # A digest of its ids and their lines' fingerprints: the same lines, the same member.
    digest = models.CharField(max_length=64, unique=True)
    cases = models.PositiveIntegerField()
    data = models.BinaryField()

    def __str__(self):
        return f"{self.cases} cases ({len(self.data):,} bytes)"
