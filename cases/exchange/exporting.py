"""Writing cases to the exchange format: a JSON array, or JSON Lines."""

import json

from .serialize import case_to_exchange

CHUNK_SIZE = 500


def exchange_objects(queryset):
    """Each case of the queryset as an exchange-format object, in the order of their ids,
    fetched CHUNK_SIZE at a time with everything the format needs (a fixed number of
    queries a chunk, however many cases there are)."""
    cases = queryset.for_exchange().order_by("public_id").iterator(chunk_size=CHUNK_SIZE)
    for case in cases:
        yield case_to_exchange(case)


def json_lines_of(queryset):
    """The cases of the queryset as JSON Lines, a line at a time: what a streamed download
    sends, never holding more than one chunk of cases."""
    for data in exchange_objects(queryset):
        yield json.dumps(data, ensure_ascii=False) + "\n"


def write_cases(queryset, write, *, json_lines=False):
    """Pass every case of the queryset, encoded, to `write`; return how many there were."""
    count = 0
    if json_lines:
        for line in json_lines_of(queryset):
            write(line)
            count += 1
        return count
    write("[")
    for data in exchange_objects(queryset):
        write(",\n" if count else "\n")
        write(json.dumps(data, ensure_ascii=False, indent=2))
        count += 1
    write("\n]\n" if count else "]\n")
    return count
