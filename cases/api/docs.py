"""The API's human docs: a page of the site, written from the OpenAPI schema the code
generates, so the two never disagree."""

import functools

from django.shortcuts import render
from django.views.decorators.http import require_safe

from cases.caching import cache_public_page, page_shows


@functools.cache
def operations():
    """[(method, path, operation)] of the API, in the schema's order."""
    from cases.api.app import api

    schema = api.get_openapi_schema()
    found = []
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            parameters = [
                {
                    "name": parameter["name"],
                    "where": parameter["in"],
                    "required": parameter.get("required", False),
                    "type": type_of(parameter.get("schema", {})),
                    "description": parameter.get("description")
                    or parameter.get("schema", {}).get("description", ""),
                }
                for parameter in operation.get("parameters", [])
            ]
            responses = [
                (str(code), answer.get("description", ""))
                for code, answer in operation.get("responses", {}).items()
            ]
            found.append(
                {
                    "method": method.upper(),
                    "path": path,
                    "anchor": operation.get("operationId", path),
                    "summary": operation.get("summary", ""),
                    "description": operation.get("description", ""),
                    "parameters": parameters,
                    "responses": responses,
                }
            )
    return schema["info"], found


def type_of(schema):
    if "type" in schema:
        kind = schema["type"]
        return f"list of {type_of(schema.get('items', {}))}" if kind == "array" else kind
    options = [type_of(option) for option in schema.get("anyOf", []) if option]
    return " or ".join(option for option in options if option != "null") or "any"


@require_safe
@cache_public_page
def api_docs(request):
    page_shows()  # no case's change changes it
    info, found = operations()
    return render(request, "cases/api_docs.html", {"info": info, "operations": found})
