"""The read API, version 1: /api/v1/ (django-ninja, which writes its OpenAPI 3.1 schema
from these functions and their types). Its human docs are our own page over that schema
(cases.api.docs): the bundled Swagger UI styles itself inline, which our CSP refuses."""

import json

from django.conf import settings
from ninja import NinjaAPI

from cases.api import catalogue, open_data
from cases.exchange.schema import case_schema

API_DESCRIPTION = """\
The Incident Library's public cases as data, read-only. Cases are in the library's
exchange format (`docs/case-format.md` in the repository), described by the JSON Schema
at `/api/v1/schema/case.json`.

- Every answer has an `ETag`; send it back in `If-None-Match` and an unchanged answer is 304.
- Any origin may read it (CORS, GET).
- One address may make {per_minute} requests a minute; past that, 429 with `Retry-After`
  (seconds).
- A withdrawn case answers 410 with its id.
- A mirror downloads `cases.jsonl.gz` once, then follows `/api/v1/changes?since=<time>`.
"""


class LibraryAPI(NinjaAPI):
    def get_openapi_schema(self, *args, **kwargs):
        """The schema, with a case in the exchange format described by the format's own
        JSON Schema (docs/case-format.schema.json) wherever the API answers with one."""
        schema = super().get_openapi_schema(*args, **kwargs)
        schema["components"].setdefault("schemas", {}).update(exchange_case_schemas())
        reference = {"$ref": "#/components/schemas/Case"}
        listed = schema["components"]["schemas"].get("CaseList", {}).get("properties", {})
        if "results" in listed:
            listed["results"]["items"] = reference
        one = schema["paths"].get("/api/v1/cases/{case_id}", {}).get("get", {})
        content = one.get("responses", {}).get(200, one.get("responses", {}).get("200"))
        if content:
            content["content"]["application/json"]["schema"] = reference
        return schema


DEFINITION_PREFIX = "CaseFormat_"


def exchange_case_schemas():
    """{name: schema} for OpenAPI's components: the case format's schema as "Case", and its
    definitions beside it, each `#/$defs/x` pointing at its new place (a tool reading the
    OpenAPI document resolves a reference from the document's root)."""
    text = json.dumps(case_schema())
    text = text.replace('"#/$defs/', f'"#/components/schemas/{DEFINITION_PREFIX}')
    schema = json.loads(text)
    definitions = schema.pop("$defs", {})
    for key in ("$schema", "$id"):  # OpenAPI 3.1's dialect is 2020-12 already
        schema.pop(key, None)
    return {"Case": schema} | {DEFINITION_PREFIX + k: v for k, v in definitions.items()}


api = LibraryAPI(
    title="Incident Library API",
    version="1",
    description=API_DESCRIPTION.format(per_minute=settings.API_REQUESTS_PER_MINUTE),
    urls_namespace="api-v1",
    docs_url=None,  # our own page: cases.api.docs
)
api.add_router("", catalogue.router)
api.add_router("", open_data.router)
