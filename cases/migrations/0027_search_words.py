"""Search finds other forms of English words, and offers corrections of misspelled ones.

Each search text gains the marked Snowball stems of its English words (cases.search.
language), and the library's words go into their own table, with a trigram index on
PostgreSQL (pg_trgm, installed by migration 0003) for finding the words most like a
misspelled one.
"""

from django.db import migrations, models

from cases.search.language import STEM_MARK, stem_tokens
from cases.search.typos import rememberable

INDEX = "search_word_trigrams"


def add_stems_and_words(apps, schema_editor):
    Case = apps.get_model("cases", "Case")
    SearchWord = apps.get_model("cases", "SearchWord")
    using = schema_editor.connection.alias
    changed, words = [], set()
    for case in Case.objects.using(using).only("pk", "search_text").iterator(chunk_size=2000):
        own = [w for w in case.search_text.split() if not w.startswith(STEM_MARK)]
        words.update(w for w in own if rememberable(w))
        text = " ".join(own + stem_tokens(own))
        if text != case.search_text:
            case.search_text = text
            changed.append(case)
        if len(changed) >= 2000:
            Case.objects.using(using).bulk_update(changed, ["search_text"])
            changed = []
    Case.objects.using(using).bulk_update(changed, ["search_text"])
    SearchWord.objects.using(using).bulk_create(
        [SearchWord(word=w) for w in sorted(words)], ignore_conflicts=True, batch_size=5000
    )


def trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX {INDEX} ON cases_searchword USING gin (word gin_trgm_ops)"
        )


def drop_trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("cases", "0026_organisation_aliases")]
    operations = [
        migrations.CreateModel(
            name="SearchWord",
            fields=[
                (
                    "word",
                    models.CharField(
                        max_length=40, primary_key=True, serialize=False, verbose_name="word"
                    ),
                ),
            ],
            options={"verbose_name": "search word", "verbose_name_plural": "search words"},
        ),
        migrations.RunPython(trigram_index, drop_trigram_index),
        migrations.RunPython(add_stems_and_words, migrations.RunPython.noop),
    ]
