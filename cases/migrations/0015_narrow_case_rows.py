"""Cases keep only their short columns in the row on PostgreSQL; long texts go to TOAST.

PostgreSQL moves a row's long values out of it only until the row fits in about 2 kB, so
a case's texts stayed in the row, compressed, and every case took a 2 kB row: 195 MB for
100,000 cases. A search that matches most of them reads all those pages to rank and count
its matches by their short columns (status, date, organisation, severity, titles). With
`toast_tuple_target` at its minimum, the long texts go to TOAST and the table holds the
same cases in 97 MB. The titles stay in the row (storage MAIN): ranking reads
`title_words` in every match, and lists and the admin's search read the titles.

Measured at 100,000 cases (make bench-compare against the commit before): a search
matching them all 22% faster, the other pages level; importing 10,000 cases as fast as
before. The UPDATE rewrites the rows already stored (their generated columns are
computed again, so PostgreSQL stores each row anew); rows of short texts stay whole,
since PostgreSQL only moves values out of rows over 2 kB.
"""

from django.db import migrations

TITLES = ["title_en", "title_ko", "title_words"]


def storage(kind):
    return ", ".join(f"ALTER COLUMN {column} SET STORAGE {kind}" for column in TITLES)


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE cases_case SET (toast_tuple_target = 128)")
    schema_editor.execute(f"ALTER TABLE cases_case {storage('MAIN')}")
    schema_editor.execute("UPDATE cases_case SET search_text = search_text")


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE cases_case RESET (toast_tuple_target)")
    schema_editor.execute(f"ALTER TABLE cases_case {storage('EXTENDED')}")


class Migration(migrations.Migration):
    dependencies = [("cases", "0014_title_words")]
    operations = [migrations.RunPython(forward, backward)]
