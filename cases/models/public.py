"""The version of what the public sees, which keys every cached public page and each
process's facet index (cases.catalogue.facet_index)."""

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
