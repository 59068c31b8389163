"""A covering index of the columns the public list filters and counts on, for PostgreSQL
(SQLite has none, so the model does not declare it). It was made for facet counts counted
in SQL; those now come from the facet index in memory (cases.catalogue.facet_index), whose
build reads these same columns of every public case."""

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
