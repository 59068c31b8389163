from django.db import migrations

INDEX = "case_search_text_trgm"


def create_trigram_index(apps, schema_editor):
    # Substring search (Korean words inside Korean text) on PostgreSQL: a trigram GIN index
    # serves LIKE '%word%'. SQLite scans, which is fine at its scale.
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {INDEX} ON cases_case USING gin (search_text gin_trgm_ops)"
    )


def drop_trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("cases", "0002_search_text")]
    operations = [migrations.RunPython(create_trigram_index, drop_trigram_index)]
