"""What a search reads of each case, in a narrow table the database keeps equal to the case.

A search that matches most of 100,000 cases visits every match's row. A case's row is about
1 kB wide (thirty translated texts, their TOAST pointers, the titles); the entry holds only
what a search filters and ranks by, so the same matches fill a fraction of the pages.

Django creates the table but never writes it: triggers on cases_case insert, update and
delete each entry as its case changes, however the case was written (a save, bulk_create
or bulk_update, QuerySet.update, the importer's COPY, raw SQL). See migration 0028.
On PostgreSQL the table also holds `search_vector`, generated from `search_text`, with its
GIN index; like the case's, the model has no field for it. A search of the entries needs
the planner's guard as much as one of the cases (cases.search.planner): left to itself,
PostgreSQL scans every entry and reads each vector back from TOAST (410 ms at 100,000).
"""

from django.db import models

from cases.search.planner import IsTrue

from .catalogue import Case, CaseQuerySet, CaseStatus, Organisation, Term


class SearchEntryQuerySet(models.QuerySet):
    def public_for_search(self):
        """The entries of public cases, by the cases' own rule (CaseQuerySet.is_public), asked
        as Case.public_for_search asks it: by a test no index serves, so that PostgreSQL
        finds a search's entries by the search index."""
        return self.filter(IsTrue(CaseQuerySet.is_public()))


class SearchEntry(models.Model):
    # Fields in the table's column order: fixed-width columns first, so that none is padded.
    # No foreign key constraints: the case's own keep the organisation and the cause, and
    # the triggers are what keeps an entry beside its case (a constraint would check every
    # entry written against the row it was just copied from).
    case = models.OneToOneField(
        Case,
        primary_key=True,
        on_delete=models.DO_NOTHING,  # the delete trigger removes the entry
        db_constraint=False,
        related_name="search_entry",
    )
    org = models.ForeignKey(
        Organisation,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,
        related_name="+",
    )
    root_cause = models.ForeignKey(
        Term,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,
        null=True,
        related_name="+",
    )
    date = models.DateField()
    status = models.CharField(max_length=20, choices=CaseStatus.choices)
    public_id = models.CharField(max_length=20)
    # lower(title_en) || ' ' || lower(title_ko), as the case's own `title_words` on PostgreSQL.
    title_words = models.TextField()
    search_text = models.TextField()

    objects = SearchEntryQuerySet.as_manager()

    class Meta:
        # Read only through the search; an entry is not a thing anyone edits.
        default_permissions = ()

    def __str__(self):
        return f"{self.public_id} ({self.status})"
