"""Writing cases to the exchange format: a JSON array, or JSON Lines."""

import json

from .serialize import case_to_exchange

CHUNK_SIZE = 500


def write_cases(queryset, write, *, json_lines=False):
    """Pass every case of the queryset, encoded, to `write`; return how many there were."""
    count = 0
    cases = queryset.for_exchange().order_by("public_id").iterator(chunk_size=CHUNK_SIZE)
    if json_lines:
        for case in cases:
            write(json.dumps(case_to_exchange(case), ensure_ascii=False) + "\n")
            count += 1
        return count
    write("[")
    for case in cases:
        write(",\n" if count else "\n")
        write(json.dumps(case_to_exchange(case), ensure_ascii=False, indent=2))
        count += 1
    write("\n]\n" if count else "]\n")
    return count
