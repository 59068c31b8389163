"""Where a case came from, as its page says it: who wrote it, who reviewed it, from which
catalogue, under which licence. Said from the case's own fields only (the exchange format's
`review`, `url` and `licence`): what the data does not say, the page does not claim."""

from dataclasses import dataclass
from urllib.parse import urlsplit

# The licence of the library's own text: the bundled content's (data/LICENSE) and every
# case written for the library. The site's footer and each case page link it.
CONTENT_LICENCE_NAME = "CC BY 4.0"
CONTENT_LICENCE_URL = "https://creativecommons.org/licenses/by/4.0/"
# `review.written_by` of a case drafted by a model from its sources, not by a person.
MACHINE_AUTHOR = "session"
SPDX_PAGE = "https://spdx.org/licenses/{}.html"


@dataclass(frozen=True)
class Licence:
    name: str
    url: str  # "" when there is no page to link (a catalogue's own LicenseRef-...)
    reused: bool  # the text is another catalogue's, under its licence


@dataclass(frozen=True)
class Provenance:
    author: str  # "" when the case does not say
    machine_drafted: bool
    source_url: str  # the case's address at the catalogue it came from, or ""
    source_host: str
    licence: Licence


def licence_of(case):
    if not case.licence:
        return Licence(CONTENT_LICENCE_NAME, CONTENT_LICENCE_URL, reused=False)
    # SPDX has a page for each listed identifier, none for a LicenseRef- of one's own.
    listed = not case.licence.startswith("LicenseRef-")
    return Licence(case.licence, SPDX_PAGE.format(case.licence) if listed else "", reused=True)


def provenance(case):
    host = urlsplit(case.source_url).hostname or "" if case.source_url else ""
    return Provenance(
        author="" if case.written_by == MACHINE_AUTHOR else case.written_by,
        machine_drafted=case.written_by == MACHINE_AUTHOR,
        source_url=case.source_url if host else "",
        source_host=host,
        licence=licence_of(case),
    )
