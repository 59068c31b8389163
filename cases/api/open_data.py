"""The API's bulk data and change feed (cases.open_data builds both; a request only reads)."""

import base64
import re
from datetime import UTC, datetime

from django.http import FileResponse, HttpResponseNotModified, JsonResponse
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.http import http_date, quote_etag
from ninja import Field, Router, Schema

from cases import open_data
from cases.api.catalogue import Problem, json
from cases.exchange.schema import case_schema
from cases.models import CaseMerge, PublishedRecord

router = Router(tags=["open data"])

CHANGES_PER_PAGE = 1000
BUILD_PENDING_RETRY = 60  # seconds a client waits for the first build
BULK_MAX_AGE = 300


def not_built_yet():
    response = json({"detail": "The bulk data is being built. Try again in a minute."}, 503)
    response["Retry-After"] = str(BUILD_PENDING_RETRY)
    return response


class BulkInfo(Schema):
    url: str = Field(description="The file: every public case, one a line, gzip-compressed.")
    sha256: str
    size: int = Field(description="Bytes, compressed.")
    cases: int
    built_at: datetime = Field(description="When the file was last brought up to date.")


@router.get(
    "/bulk",
    response={200: BulkInfo, 503: Problem},
    summary="About the bulk file",
    operation_id="bulk_info",
)
def bulk_info(request):
    """Where the bulk file is, its SHA-256 and size, how many cases it holds and when it
    was last brought up to date (a few seconds after each change)."""
    build = open_data.latest_build()
    if build is None:
        return not_built_yet()
    return json(
        {
            "url": request.build_absolute_uri("/api/v1/cases.jsonl.gz"),
            "sha256": build.sha256,
            "size": build.size,
            "cases": build.cases,
            "built_at": utc(build.built_at),
        }
    )


@router.get(
    "/cases.jsonl.gz",
    operation_id="bulk_file",
    response={200: None, 304: None, 503: Problem},
    summary="Every public case, one a line (gzip)",
    openapi_extra={
        "responses": {
            "200": {
                "description": "gzip of JSON lines, each a case in the exchange format.",
                "content": {"application/gzip": {}},
            }
        }
    },
)
def bulk_file(request):
    """Every public case in the exchange format, one a line, ordered by id, gzip-compressed.
    Its ETag is its SHA-256 (also in `Content-Digest`); a client that has it gets 304."""
    build = open_data.latest_build()
    if build is None:
        return not_built_yet()
    etag = quote_etag(build.sha256)
    headers = {
        "ETag": etag,
        "Last-Modified": http_date(build.built_at.timestamp()),
        "Cache-Control": f"public, max-age={BULK_MAX_AGE}",
        "Content-Digest": f"sha-256=:{base64.b64encode(bytes.fromhex(build.sha256)).decode()}:",
    }
    if etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        response = FileResponse(
            open_data.storage().open(build.name, "rb"),
            content_type="application/gzip",
            as_attachment=True,
            filename=open_data.BULK_NAME,
        )
    for name, value in headers.items():
        response[name] = value
    return response


class Change(Schema):
    id: str
    modified: datetime = Field(description="When what the public sees of the case changed.")
    state: str = Field(
        description="published; withdrawn, or merged (into `merged_into`): a mirror drops the case."
    )
    published: datetime | None = Field(description="When the case was first published.")
    merged_into: str | None = Field(
        None, description="The case a merged one was merged into, as its duplicate."
    )


class ChangeFeed(Schema):
    since: datetime | None
    until: datetime | None = Field(
        description="The feed is complete up to this time: ask next with since=until."
    )
    changes: list[Change]
    next: str | None = Field(description="More changes up to `until`, when there are.")


def parse_since(value):
    """An ISO 8601 time (with its zone), or a date (from its midnight, UTC); None when
    the text is neither."""
    # A "+01:00" zone written into a URL unencoded arrives as " 01:00".
    value = re.sub(r" (\d\d:\d\d)$", r"+\1", value)
    try:
        if len(value) == 10 and (day := parse_date(value)):
            moment = datetime.fromisoformat(f"{day.isoformat()}T00:00:00+00:00")
        else:
            moment = parse_datetime(value)
    except ValueError:  # well formed, but no such day or time
        return None
    if moment is None or moment.tzinfo is None:
        return None
    return moment


def utc(moment):
    """A time as the feed writes it: UTC, with Z (nothing to encode in a URL)."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z") if moment else None


@router.get(
    "/changes",
    operation_id="changes",
    response={200: ChangeFeed, 400: Problem, 503: Problem},
    summary="What changed since a time (OSV-style)",
)
def changes(request, since: str | None = None, after: str | None = None):
    """The public cases that were published, changed or withdrawn after `since` (ISO 8601
    with a zone, or a date), oldest change first, 1,000 a page. Without `since`, every
    case ever published. A mirror keeps `until` and asks with `since=until` next time."""
    moment = None
    if since:
        moment = parse_since(since.strip())
        if moment is None:
            return json(
                {
                    "detail": "since: give an ISO 8601 time with its zone "
                    "(2026-01-31T09:00:00Z) or a date (2026-01-31)."
                },
                400,
            )
    build = open_data.latest_build()
    if build is None:
        return not_built_yet()
    records = PublishedRecord.objects.filter(modified__lte=build.built_at)
    if moment is not None:
        records = records.filter(modified__gt=moment)
    records = records.order_by("modified", "public_id")
    if after:
        # The page after one that ended at `after` (id) changed at the same time or later.
        last = PublishedRecord.objects.filter(public_id=after).first()
        if last is not None:
            records = records.exclude(modified__lt=last.modified).exclude(
                modified=last.modified, public_id__lte=last.public_id
            )
    page = list(
        records.values_list("public_id", "modified", "state", "published")[: CHANGES_PER_PAGE + 1]
    )
    more = len(page) > CHANGES_PER_PAGE
    page = page[:CHANGES_PER_PAGE]
    survivors = dict(
        CaseMerge.objects.filter(
            absorbed_public_id__in=[row[0] for row in page if row[2] == "merged"]
        ).values_list("absorbed_public_id", "survivor__public_id")
    )
    next_url = None
    if more:
        data = request.GET.copy()
        data["after"] = page[-1][0]
        next_url = request.build_absolute_uri(f"{request.path}?{data.urlencode()}")
    return json(
        {
            "since": utc(moment),
            "until": utc(build.built_at),
            "changes": [
                {
                    "id": public_id,
                    "modified": utc(modified),
                    "state": state,
                    "published": utc(published),
                    **({"merged_into": survivors.get(public_id)} if state == "merged" else {}),
                }
                for public_id, modified, state, published in page
            ],
            "next": next_url,
        }
    )


@router.get(
    "/schema/case.json",
    operation_id="case_schema",
    response=dict,
    summary="The exchange format as a JSON Schema",
)
def case_format_schema(request):
    """One case of the exchange format, as JSON Schema draft 2020-12: what the import
    takes and every answer here gives. The rules JSON Schema cannot say (references to
    other cases, dates in the future, ...) are listed in its description."""
    response = JsonResponse(
        case_schema(), content_type="application/schema+json", json_dumps_params={"indent": 1}
    )
    response["Cache-Control"] = f"public, max-age={BULK_MAX_AGE}"
    return response
