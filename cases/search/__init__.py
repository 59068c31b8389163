"""Search over cases in both languages, finding what readers type.

Each case keeps a `search_text`: the words of its texts in English and Korean and of the
labels and aliases of its terms, casefolded, each word once, then the marked Snowball
stems of its English words (`text`, `language`). The database copies what a search reads
of each case into a narrow search entry (cases.models.search), with, on PostgreSQL, a
GIN-indexed vector of that text.

A query becomes a plan (`parsing`): clauses, one for each word, quoted phrase or name the
name book knows (`names`: organisations' and terms' names and aliases, and the glossary's
common words, in either script), each satisfied by any of its forms. `matching` writes
the plan for the database: a word matches the beginnings of words (Korean particles
attach to nouns: "체크포인트" finds "체크포인트를") and, in English, its other forms by
stem; common words never block a match. It ranks by organisation, titles and terms.

When no case has every word, the list (cases.catalogue.query) corrects misspelled words
from the library's own words (`typos`: pg_trgm on PostgreSQL, the same measure on
SQLite), then lists the cases with the most of the words. `snippets` marks the words
found on each result. How PostgreSQL is told to plan a search is `planner`.
"""
