"""The site's own error pages, in the reader's language.

400, 500 and 503 are rendered from templates that need nothing from the request or the
database (templates/error_base.html): those are the pages shown when the request itself
(a forged Host header) or the server is what is broken. 403, 404 and 429 use the ordinary
page layout through Django's own handlers, or the functions below.
"""

import math

from axes.helpers import get_cool_off
from django.http import HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import translation

# How long a client should wait before trying again while the database is away.
DATABASE_RETRY_AFTER_SECONDS = 30


def error_page(request, template_name, status):
    """The template rendered without the request's context, in the request's language.

    The language comes from the address (/en/, /ko/), else the cookie or Accept-Language.
    """
    language = translation.get_language_from_request(request, check_path=True)
    with translation.override(language):
        return HttpResponse(render_to_string(template_name), status=status)


def bad_request(request, exception):
    return error_page(request, "400.html", 400)


# What a 500 says when even its template cannot be rendered (say, static files missing
# from the manifest): the same words, with nothing that can fail.
BARE_SERVER_ERROR = (
    '<!doctype html><html lang="en"><meta charset="utf-8"><title>Server error</title>'
    "<h1>Server error</h1><p>Something went wrong on our side. Please try again later.</p>"
    '<p lang="ko">서버에 문제가 생겼습니다. 잠시 뒤에 다시 시도해 주세요.</p></html>'
)


def server_error(request):
    try:
        return error_page(request, "500.html", 500)
    except Exception:  # the error page must never raise in its turn
        return HttpResponse(BARE_SERVER_ERROR, status=500)


def database_unavailable(request):
    response = error_page(request, "503.html", 503)
    response["Retry-After"] = str(DATABASE_RETRY_AFTER_SECONDS)
    return response


def csrf_failure(request, reason=""):
    """A form that failed its CSRF check (CSRF_FAILURE_VIEW): usually an expired page."""
    return render(request, "403.html", {"csrf_failure": True}, status=403)


def login_locked_out(request, original_response, credentials):
    """django-axes' lockout (AXES_LOCKOUT_CALLABLE): our own page, 429, and when to retry."""
    cool_off = get_cool_off(request)
    response = render(
        request, "429.html", {"minutes": math.ceil(cool_off.total_seconds() / 60)}, status=429
    )
    response["Retry-After"] = str(int(cool_off.total_seconds()))
    return response
