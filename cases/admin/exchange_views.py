"""Cases in and out through the admin: the command line's importer and exporter behind a
page, for reviewers.

An import is two steps. The upload runs the importer dry (it validates and writes every
case, then rolls back) and shows what it would do; the file is kept (PendingImport) under a
random token bound to the reviewer and their session, with its SHA-256 in the session. The
confirmation imports exactly those bytes, once, with the options of the dry run, and runs
the whole validation again: the library may have changed meanwhile. Either step refuses at
once, rather than wait, while another import runs. An export streams the exchange format's
JSON Lines, as `export_cases` writes it.
"""

import tempfile
from pathlib import Path
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.db.models import Q
from django.http import HttpResponseRedirect, StreamingHttpResponse
from django.http.multipartparser import MultiPartParserError
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt, csrf_protect

from cases import rules
from cases.exchange.exporting import json_lines_of
from cases.exchange.importer import CaseImporter, ImportFailed
from cases.exchange.locking import exclusive_import
from cases.exchange.reading import Input, ProblemList
from cases.models import Case, PendingImport
from cases.rules import MAX_CASE_SIZE_LABEL

from .exchange_uploads import (
    ImportUploadForm,
    LimitedUpload,
    json_lines_for,
    shown_file_name,
    size_label,
)

SESSION_KEY = "cases.pending_imports"  # {token: sha256} of this session's uploads
SESSION_TOKENS = 10  # the newest this many; an older upload must be uploaded again
SHOWN_IDS = 50  # the ids the report lists in each group, then "and N more"
LINKED_IDS = 200  # the most ids a link to the change list names (its address stays short)
# The most possible duplicates a report or message lists (the command line lists them all).
SHOWN_DUPLICATES = 100
DOWNLOAD_CHUNK = 64 * 1024  # characters a streamed export sends at a time
GROUPS = {
    "created": gettext_lazy("Created"),
    "updated": gettext_lazy("Updated"),
    "unchanged": gettext_lazy("Unchanged"),
    "skipped": gettext_lazy("Skipped: changed by an editor since their last import"),
}


def busy_message():
    return _("Another import is running; try again shortly.")


class ImportBusy(Exception):
    """Another import or restore holds the import lock."""


def refuse_to_wait():
    """The import lock's `waiting`: a request says so at once rather than wait (an import
    of 100,000 cases takes minutes)."""
    raise ImportBusy


def problem_rows(failure, file_name):
    """(where, case, field, message) of each listed problem, and how many more there are."""
    listed = failure.problems[: ProblemList.LISTED]
    rows = []
    for problem in listed:
        if hasattr(problem, "case_id"):  # the importer's LocatedProblem
            rows.append((problem.where, problem.case_id, problem.path, problem.message))
        else:  # a problem of the file itself: where in it is in the text
            rows.append(("", "", "", str(problem).removeprefix(f"{file_name}: ")))
    return rows, failure.count - len(rows)


def group(key, ids, count=None):
    """One line of the report: what, how many, the first SHOWN_IDS ids and how many more."""
    count = len(ids) if count is None else count
    shown = ids[:SHOWN_IDS]
    return {
        "key": key,
        "label": GROUPS[key],
        "count": count,
        "ids": shown,
        "more": len(ids) - len(shown),
    }


def in_chunks(pieces, size=DOWNLOAD_CHUNK):
    """Join small pieces of text into larger ones: a write per case would be 100,000 writes."""
    buffer, length = [], 0
    for piece in pieces:
        buffer.append(piece)
        length += len(piece)
        if length >= size:
            yield "".join(buffer)
            buffer, length = [], 0
    if buffer:
        yield "".join(buffer)


class CaseExchangeViews:
    """Mixed into CaseAdmin: the Import and Export-all buttons of the change list, the
    import's pages, and the change list's export action."""

    def get_urls(self):
        def view(route, func, name):
            return path(route, self.admin_site.admin_view(func), name=f"cases_case_{name}")

        return [
            # CSRF is checked inside, once the upload is read with its size limit.
            view("import/", csrf_exempt(self.import_view), "import"),
            view("import/<str:token>/", self.import_confirm_view, "import_confirm"),
            view("export/", self.export_all_view, "export_all"),
        ] + super().get_urls()

    def has_exchange_permission(self, request):
        return request.user.has_perm("cases.review_case")

    def check_exchange_permission(self, request):
        if not self.has_exchange_permission(request):
            raise PermissionDenied

    def changelist_view(self, request, extra_context=None):
        extra = extra_context or {}
        extra["can_exchange_cases"] = self.has_exchange_permission(request)
        return super().changelist_view(request, extra)

    def lookup_allowed(self, lookup, value, request):
        # The link an import's message gives: the cases it wrote.
        return lookup == "public_id__in" or super().lookup_allowed(lookup, value, request)

    # --- the upload and its dry run --------------------------------------------------

    def import_view(self, request):
        self.check_exchange_permission(request)
        if request.method != "POST":
            return self.upload_page(request, ImportUploadForm())
        limit = settings.CASE_IMPORT_MAX_UPLOAD_SIZE
        handler = LimitedUpload(request, limit)
        request.upload_handlers = [handler]
        try:
            request.POST  # noqa: B018 (read now, through the handler above)
        except (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent, MultiPartParserError):
            error = _("The upload could not be read: choose the file again.")
            return self.upload_page(request, ImportUploadForm(), error=error)
        return csrf_protect(self.dry_run)(request, handler)

    def dry_run(self, request, handler):
        if handler.too_large:
            error = _(
                "The file is larger than %(limit)s, the most the admin takes. Import a larger "
                "library with the command line: manage.py import_cases FILE."
            ) % {"limit": size_label(handler.limit)}
            return self.upload_page(request, ImportUploadForm(), error=error)
        form = ImportUploadForm(request.POST, request.FILES)
        if not form.is_valid():
            return self.upload_page(request, form)
        upload = form.cleaned_data["file"]
        file_name = shown_file_name(upload.name)
        status, force = form.cleaned_data["status"], form.cleaned_data["force"]
        try:
            result = self.run_import(
                request, upload.temporary_file_path(), file_name, status, force, dry_run=True
            )
        except ImportBusy:
            return self.upload_page(request, form, error=busy_message())
        except ImportFailed as failure:
            return self.problems_page(request, failure, file_name)
        counts = result.counts()
        pending = None
        if result.created or result.updated:
            pending = PendingImport.objects.keep(
                user=request.user,
                file_name=file_name,
                # The very file the dry run read (Django's temporary file, unchanged since).
                content=Path(upload.temporary_file_path()).read_bytes(),
                status=status,
                force=force,
                dry_run_counts=counts,
            )
            self.remember(request, pending)
        context = {
            "file_name": file_name,
            "status_label": Case.Status(status).label,
            "force": force,
            "groups": [group(key, getattr(result, key)) for key in GROUPS],
            "matched_organisations": result.matched_organisations,
            "duplicates": result.duplicates[:SHOWN_DUPLICATES],
            "duplicates_more": max(len(result.duplicates) - SHOWN_DUPLICATES, 0),
            "pending": pending,
            # Slugs no term has: the term each goes to, or a new one held for review.
            "mapped_terms": result.mapped_terms,
            "new_terms": result.new_terms,
        }
        return self.report_page(request, _("Import: what the dry run found"), context)

    def run_import(self, request, file_path, file_name, status, force, *, dry_run):
        importer = CaseImporter(
            [Input(file_name, Path(file_path), json_lines=json_lines_for(file_name))],
            status=status,
            force=force,
            user=request.user,
            note=f"imported by {request.user.get_username()} in the admin from {file_name}",
            waiting=refuse_to_wait,
        )
        return importer.run(dry_run=dry_run)

    # --- the confirmation ----------------------------------------------------------

    @staticmethod
    def remember(request, pending):
        tokens = dict(request.session.get(SESSION_KEY, {}))
        tokens[pending.token] = pending.sha256
        request.session[SESSION_KEY] = dict(list(tokens.items())[-SESSION_TOKENS:])

    @staticmethod
    def forget(request, token):
        tokens = dict(request.session.get(SESSION_KEY, {}))
        if tokens.pop(token, None) is not None:
            request.session[SESSION_KEY] = tokens

    def waiting_import(self, request, token):
        """This user's and this session's upload under `token`, and the SHA-256 the session
        holds for it; (None, None) for anyone else's, or one used or forgotten."""
        expected = request.session.get(SESSION_KEY, {}).get(token)
        if not expected:
            return None, None
        return PendingImport.objects.filter(token=token, user=request.user).first(), expected

    def refuse_confirmation(self, request, message):
        self.message_user(request, message, messages.ERROR)
        return HttpResponseRedirect(reverse("admin:cases_case_import"))

    def import_confirm_view(self, request, token):
        self.check_exchange_permission(request)
        pending, expected = self.waiting_import(request, token)
        if pending is None:
            self.forget(request, token)
            return self.refuse_confirmation(
                request,
                _(
                    "This import is not waiting for you: it was imported already, it "
                    "expired, or it was not yours. Nothing was imported; upload the file again."
                ),
            )
        if pending.expired:
            pending.delete()
            self.forget(request, token)
            return self.refuse_confirmation(
                request,
                _(
                    "This upload expired: an upload waits an hour for its confirmation. "
                    "Nothing was imported; upload the file again."
                ),
            )
        if request.method != "POST":
            return self.waiting_page(request, pending)
        if not pending.intact(expected):
            pending.delete()
            self.forget(request, token)
            return self.refuse_confirmation(
                request,
                _(
                    "The kept file is not the one the dry run read. Nothing was imported; "
                    "upload the file again."
                ),
            )
        try:
            with exclusive_import(waiting=refuse_to_wait):
                if not pending.claim():  # a second confirmation of the same upload
                    return self.refuse_confirmation(
                        request, _("This file was imported already: nothing was done twice.")
                    )
                self.forget(request, token)
                result = self.import_kept_file(request, pending)
        except ImportBusy:
            self.message_user(request, busy_message(), messages.WARNING)
            return HttpResponseRedirect(reverse("admin:cases_case_import_confirm", args=[token]))
        except ImportFailed as failure:
            return self.problems_page(request, failure, pending.file_name, confirming=True)
        self.say_imported(request, pending, result)
        return HttpResponseRedirect(reverse("admin:cases_case_changelist"))

    def import_kept_file(self, request, pending):
        suffix = Path(pending.file_name).suffix
        with tempfile.NamedTemporaryFile(prefix="import-", suffix=suffix) as file:
            file.write(bytes(pending.content))
            file.flush()
            return self.run_import(
                request, file.name, pending.file_name, pending.status, pending.force, dry_run=False
            )

    def say_imported(self, request, pending, result):
        counts = result.counts()
        text = _(
            "Imported %(file)s: %(created)s created, %(updated)s updated, %(unchanged)s "
            "unchanged, %(skipped)s skipped."
        ) % {"file": pending.file_name, **counts}
        written = result.created + result.updated
        if len(written) <= LINKED_IDS:
            link = (written, _("Show the imported cases"))
        else:  # too many for an address: the new ones, if they are few enough
            link = (result.created, _("Show the new cases"))
        ids, label = link
        if ids and len(ids) <= LINKED_IDS:
            query = urlencode({"public_id__in": ",".join(ids)})
            url = f"{reverse('admin:cases_case_changelist')}?{query}"
            text = format_html('{} <a href="{}">{}</a>', text, url, label)
        self.message_user(request, text, messages.SUCCESS)
        if result.matched_organisations:
            self.message_user(
                request,
                _("Organisations matched: %(matches)s")
                % {"matches": "; ".join(result.matched_organisations)},
                messages.INFO,
            )
        if result.skipped:
            self.message_user(
                request,
                _(
                    "Skipped, because an editor changed them since their last import (tick "
                    "“Overwrite” to replace them): %(ids)s"
                )
                % {"ids": self.id_list(result.skipped)},
                messages.WARNING,
            )
        if result.duplicates:
            shown = "; ".join(str(r) for r in result.duplicates[:SHOWN_DUPLICATES])
            more = len(result.duplicates) - SHOWN_DUPLICATES
            self.message_user(
                request,
                _(
                    "Possible duplicates, imported all the same (merge them from a case's "
                    "page): %(list)s"
                )
                % {"list": shown + (f"; … (+{more})" if more > 0 else "")},
                messages.WARNING,
            )
        if counts != pending.dry_run_counts:
            expected = pending.dry_run_counts
            self.message_user(
                request,
                _(
                    "The library changed between the dry run and the import, which did what "
                    "is said above; the dry run expected %(created)s created, %(updated)s "
                    "updated, %(unchanged)s unchanged, %(skipped)s skipped."
                )
                % {key: expected.get(key, 0) for key in GROUPS},
                messages.WARNING,
            )
        if result.new_terms:  # last: the counts and refusals come first
            url = f"{reverse('admin:cases_term_changelist')}?reviewed__exact=0"
            self.message_user(
                request,
                format_html(
                    '{} <a href="{}">{}</a>',
                    _("%(count)s new term(s) wait for review: the public sees none of them yet.")
                    % {"count": len(result.new_terms)},
                    url,
                    _("Review the new terms"),
                ),
                messages.WARNING,
            )

    @staticmethod
    def id_list(ids):
        shown = ", ".join(ids[:SHOWN_IDS])
        if len(ids) <= SHOWN_IDS:
            return shown
        return _("%(ids)s and %(count)s more") % {"ids": shown, "count": len(ids) - SHOWN_IDS}

    # --- pages ---------------------------------------------------------------------

    def page_context(self, request, title, **extra):
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "upload_limit": size_label(settings.CASE_IMPORT_MAX_UPLOAD_SIZE),
            "case_limit": MAX_CASE_SIZE_LABEL,
            "text_limit": f"{rules.MAX_TEXT_LENGTH:,}",
            "step_limit": rules.MAX_STEPS,
            "term_limit": rules.MAX_TERMS,
            **extra,
        }

    def upload_page(self, request, form, error=None):
        context = self.page_context(request, _("Import cases"), form=form, error=error)
        return TemplateResponse(request, "admin/cases/case/import_upload.html", context)

    def report_page(self, request, title, context):
        context = self.page_context(request, title, **context)
        return TemplateResponse(request, "admin/cases/case/import_report.html", context)

    def problems_page(self, request, failure, file_name, *, confirming=False):
        rows, unlisted = problem_rows(failure, file_name)
        context = {
            "file_name": file_name,
            "problems": rows,
            "problem_count": failure.count,
            "unlisted": unlisted,
            "confirming": confirming,
        }
        return self.report_page(request, _("Import: nothing can be imported"), context)

    def waiting_page(self, request, pending):
        counts = pending.dry_run_counts
        context = {
            "file_name": pending.file_name,
            "status_label": Case.Status(pending.status).label,
            "force": pending.force,
            "groups": [group(key, [], counts.get(key, 0)) for key in GROUPS],
            "pending": pending,
        }
        return self.report_page(request, _("Import: waiting for your confirmation"), context)

    # --- export --------------------------------------------------------------------

    @admin.action(
        description=gettext_lazy("Export selected cases (JSON Lines)"), permissions=["exchange"]
    )
    def export_selected(self, request, queryset):
        """A pending revision's working copy stands for its case, exported as `export_cases`
        exports it: the approved text, not the revision waiting for review."""
        chosen = Case.objects.live().filter(
            Q(pk__in=queryset.values("pk")) | Q(pk__in=queryset.values("draft_of"))
        )
        return self.download(chosen)

    def export_all_view(self, request):
        self.check_exchange_permission(request)
        return self.download(Case.objects.live())

    @staticmethod
    def download(cases):
        """The cases as a JSON Lines file, streamed: 100,000 cases are never in memory, only
        a chunk of them (cases.exchange.exporting)."""
        name = f"incident-library-{timezone.localdate():%Y-%m-%d}-{cases.count()}-cases.jsonl"
        response = StreamingHttpResponse(
            in_chunks(json_lines_of(cases)), content_type="application/jsonl; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
