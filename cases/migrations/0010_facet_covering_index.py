"""Facet counts read a few columns of every listed case (cases.facets.group_counts); on
PostgreSQL a covering index serves them without visiting the table. SQLite has no
covering indexes, so the model does not declare it."""

from django.db import migrations


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "CREATE INDEX IF NOT EXISTS case_status_facets ON cases_case (status) "
            "INCLUDE (id, date, org_id, severity, root_cause_id)"
        )


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS case_status_facets")


class Migration(migrations.Migration):
    dependencies = [("cases", "0009_full_text_search")]
    operations = [migrations.RunPython(create_index, drop_index)]
