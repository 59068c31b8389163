"""What every answer under /api/ has: CORS for reading from any origin, and a per-address
rate limit (incidentlib.ratelimit) counted before anything else is done."""

from django.conf import settings
from django.http import HttpResponse, JsonResponse

from incidentlib.ratelimit import Limit, too_many

API_PREFIX = "/api/"
READ_METHODS = "GET, HEAD, OPTIONS"
# What a browser's script may send (If-None-Match for its 304s) and read of an answer.
ALLOWED_HEADERS = "Accept, Accept-Language, If-None-Match, If-Modified-Since"
EXPOSED_HEADERS = "ETag, Last-Modified, Retry-After, Content-Digest"
PREFLIGHT_MAX_AGE = 86400


class ApiMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        limit = Limit("api", settings.API_REQUESTS_PER_MINUTE, 60)
        if wait := limit.wait(request):
            body = {"detail": f"Too many requests from this address. Try again in {wait} s."}
            response = too_many(JsonResponse(body), wait)
        elif request.method == "OPTIONS":
            response = HttpResponse(status=204)
            response["Access-Control-Allow-Methods"] = READ_METHODS
            response["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
            response["Access-Control-Max-Age"] = str(PREFLIGHT_MAX_AGE)
        elif request.method == "HEAD":
            # As Django's own views do: HEAD is GET, without its body (the headers, the
            # bulk file's length and digest among them, stay).
            request.method = "GET"
            response = without_body(self.get_response(request))
        else:
            response = self.get_response(request)
        # No credentials are ever read: any origin may read what anyone may.
        response["Access-Control-Allow-Origin"] = "*"
        response["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        return response


def without_body(response):
    if response.streaming:
        stream = getattr(response, "file_to_stream", None)
        if stream is not None:
            stream.close()  # the bulk file, opened for nothing
        headless = HttpResponse(status=response.status_code)
        for name, value in response.items():
            headless[name] = value
        return headless
    length = response.get("Content-Length")
    response.content = b""
    if length is not None:
        response["Content-Length"] = length
    return response
