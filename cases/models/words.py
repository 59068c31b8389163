"""The words of the library, for correcting a reader's misspelled search word."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class SearchWord(models.Model):
    """A word some case's search text has or had (cases.search.typos).

    Words are only added as cases are written: a word that no case has any more stays
    until `manage.py reindex_search` rebuilds the table, and a correction is offered only
    when a public case has it (checked as it is offered), so a word of a draft or of a
    withdrawn case is never shown.
    """

    word = models.CharField(_("word"), max_length=40, primary_key=True)

    class Meta:
        verbose_name = _("search word")
        verbose_name_plural = _("search words")

    def __str__(self):
        return self.word
