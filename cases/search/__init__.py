"""Search over cases in both languages.

Each case keeps a `search_text`: the words of its texts in English and Korean and of the
labels and aliases of its terms, casefolded, each word once (`text`). A query matches when
every word of it begins a word of that text (`query`). Matching word beginnings, not whole
words, is what Korean needs: particles attach to nouns ("체크포인트를"), and the bare noun
must find it.

PostgreSQL answers from a GIN index on `search_vector`, a stored column that only the
database knows (migration 0012: `search_text::tsvector`, the same words as lexemes), with
prefix queries `'word':*`; SQLite scans the text for " word". Both see the same words:
those of `text.words_of`, on the text's side and on the query's. How PostgreSQL is told
to plan a search is `planner`.
"""
