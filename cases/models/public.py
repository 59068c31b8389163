"""The version of what the public sees, which keys every cached public page, and the
counts of the whole public library, kept up to date with it."""

from django.db import connections, models
from django.db.models import F


class ContentVersion(models.Model):
    """One row, bumped in the same transaction as every change the public can see.

    It lives in the database, not the cache: every app process, and every process that
    changes content (an import run from the shell, say), sees the same number, and a read
    replica receives it together with the change it stands for.
    """

    ROW = 1

    number = models.PositiveBigIntegerField(default=0)
    # The version LibraryCount was counted at: its counts stand only while this is `number`.
    counted = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(pk=1), name="one_content_version")]

    def __str__(self):
        return str(self.number)

    @classmethod
    def current(cls, using):
        # Every anonymous request asks this: by hand, it costs half what the ORM's query does.
        with connections[using].cursor() as cursor:
            cursor.execute(f"SELECT number FROM {cls._meta.db_table} WHERE id = %s", [cls.ROW])
            row = cursor.fetchone()
        return row[0] if row else 0

    @classmethod
    def bump(cls, using):
        """A new number; the row stays locked until the transaction ends."""
        rows = cls.objects.using(using).filter(pk=cls.ROW)
        if not rows.update(number=F("number") + 1):
            # A database emptied since its migration made the row (tests flush tables).
            cls.objects.using(using).get_or_create(pk=cls.ROW)
            rows.update(number=F("number") + 1)

    @classmethod
    def counts_stand_sql(cls):
        """SQL that is true while LibraryCount holds the counts of the current version."""
        return (
            f"COALESCE((SELECT counted = number FROM {cls._meta.db_table} "
            f"WHERE id = {int(cls.ROW)}), FALSE)"
        )


class LibraryCount(models.Model):
    """How many public cases each term, organisation, cause, year and severity has.

    The unfiltered list shows these counts, and every facet a reader has not narrowed by
    anything else: counted afresh, they read every public case's terms (about 100 ms at
    100,000 cases). They are counted again with every change the public can see
    (cases.facets.refresh_library_counts), and used only while ContentVersion.counted says
    they are of the current version; otherwise the list counts the library itself.
    """

    kind = models.CharField(max_length=10)  # "term" or one of cases.facets.COLUMN_KINDS
    key = models.CharField(max_length=40)  # a term's or organisation's id, a year, a severity
    count = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "key"], name="one_count_per_key")]

    def __str__(self):
        return f"{self.kind} {self.key}: {self.count}"
