"""The version of what the public sees, which labels every cached public page and each
process's facet index (cases.catalogue.facet_index), and what each version changed
(cases.catalogue.changes)."""

import secrets

from django.db import connections, models


def first_number():
    """Where a database's versions start: at random, far from any other database's, so
    that a cache it shares with another database (or with an earlier one, since emptied)
    never takes that one's pages for its own at the same number."""
    return secrets.randbelow(2**32) << 20


class ContentVersion(models.Model):
    """One row, bumped in the same transaction as every change the public can see.

    It lives in the database, not the cache: every app process, and every process that
    changes content (an import run from the shell, say), sees the same number, and a read
    replica receives it together with the change it stands for.
    """

    ROW = 1

    number = models.PositiveBigIntegerField(default=first_number)

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
        """The new number; the row stays locked until the transaction ends."""
        # (one round trip: both databases return the row an UPDATE wrote)
        sql = f"UPDATE {cls._meta.db_table} SET number = number + 1 WHERE id = %s RETURNING number"
        with connections[using].cursor() as cursor:
            cursor.execute(sql, [cls.ROW])
            row = cursor.fetchone()
            if row is None:
                # A database emptied since its migration made the row (tests flush tables).
                cls.objects.using(using).get_or_create(pk=cls.ROW)
                cursor.execute(sql, [cls.ROW])
                row = cursor.fetchone()
        return row[0]


class PublicChange(models.Model):
    """What one version of the public content changed: a row per case it changed, or one
    row without a case for a change of anything else (a label, a name, a large import),
    which may have changed every page.

    Written in the transaction that bumps the version, so a process that reads a version
    can read what led to it: its facet index then updates the changed cases' values, and
    cached pages that show none of them are kept (cases.caching).
    """

    version = models.PositiveBigIntegerField()
    # Not a foreign key: a deleted case's change is still a change.
    case_id = models.IntegerField(null=True, blank=True)
    # Whether the case came into or left the public, or changed what lists count and sort
    # it by (its organisation, terms, cause, date, severity).
    listing = models.BooleanField(default=False)
    # If so, the values lists filter it by before and after ([before, after], each null
    # where the public did not see it): the lists it was or is on or counted in, and the
    # case pages whose similar cases it may join or leave.
    facets = models.JSONField(default=list, blank=True)
    # Changed only as the neighbour of a changed case, public before and after, whose link
    # to it stayed: its own content is as it was; only what its page shows of that case is
    # not (cases.public.case_links mends such a page rather than render it again).
    neighbour = models.BooleanField(default=False)
    # Of a case public before and after its own change: the languages ("en ko", "en", "")
    # in which what it shows on other pages (its card, its link) changed
    # (cases.catalogue.shown_texts). Null: every language, as for any other row.
    languages = models.CharField(  # noqa: DJ001 (null, every language, is not "", none)
        max_length=32, null=True, blank=True, default=None
    )

    class Meta:
        indexes = [models.Index(fields=["version", "case_id"], name="public_change_version")]

    def __str__(self):
        return f"{self.version}: {self.case_id or 'everything'}"
