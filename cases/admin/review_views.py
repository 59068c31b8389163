"""The review desk in the admin: comments beside the fields of the case form, who is
reviewing a case, who else has it open, what changed since its last review, the review
queue's waiting times, and the report of the cases waiting longest. Each view is thin: it
calls cases.editorial and says what happened.

A comment's forms stand outside the case form (HTML nests no forms): the threads' fields
and buttons name them with `form="…"`, so that without JavaScript the panel above the form
works as it is; static/admin/js/field-comments.js moves each thread beside its field and
sends its buttons with fetch(), so an editor's unsaved edits stay in the form.
"""

from collections import Counter

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import F
from django.http import HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone
from django.utils.timesince import timesince
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from cases.editorial import claims, comments, fields, presence
from cases.editorial.rights import WorkflowError, display_name, is_reviewer
from cases.models import Case, CaseComment, CaseStep

from . import reports

Status = Case.Status
COMMENTS = "admin/cases/case/_comments.html"
# Exchange paths whose form field is named otherwise (a translated one adds `_en`, `_ko`).
FORM_FIELDS = {
    "id": "public_id",
    "timeline.detected_after": "detected_after",
    "timeline.resolved_after": "resolved_after",
    "url": "source_url",
    "review.written_by": "written_by",
}
# Lists the inlines hold, by the inline's formset prefix (its group is `<prefix>-group`).
INLINES = {
    "domain": "case_terms",
    "symptoms": "case_terms",
    "components": "case_terms",
    "contributing": "case_terms",
    "remediation": "steps",
    "action_items": "steps",
    "sources": "sources",
    "related": "outgoing_relations",
}
REVIEW_LABELS = {
    claims.PREFIX + "changes_requested": gettext_lazy("Changes requested"),
    claims.PREFIX + "approved": gettext_lazy("Approved"),
}
STEP_LISTS = {CaseStep.Kind.REMEDIATION: "remediation", CaseStep.Kind.ACTION_ITEM: "action_items"}


def is_fetch(request):
    return request.headers.get("X-Requested-With") == "fetch"


def field_places(case):
    """A function giving, for a field path, where the case form shows it: {"field": name}
    for a field of the case form, {"row": "steps-3", "field": "text_ko"} for one of an
    inline's rows, {"group": "steps-group"} for an inline. One query (the case's steps, in
    the order of their inline)."""
    rows, seen = {}, Counter()
    kinds = case.steps.order_by("kind", "position").values_list("kind", flat=True)
    for row, kind in enumerate(kinds):
        name = STEP_LISTS.get(kind)
        rows[(name, seen[name])] = f"steps-{row}"
        seen[name] += 1

    def place(field_path):
        parsed = fields.parse_path(field_path)
        if parsed is None:
            return {}
        name, index, language = parsed
        if index is not None:
            row = f"sources-{index}" if name == "sources" else rows.get((name, index))
            return {"row": row, "field": f"text_{language}" if language else ""} if row else {}
        if name in INLINES:
            return {"group": f"{INLINES[name]}-group"}
        field = FORM_FIELDS.get(name, name.replace(".", "_"))
        return {"field": f"{field}_{language}" if language else field}

    return place


def named(user):
    return display_name(user) if user else _("someone")


def placed(threads, place):
    """Give each comment its field's label, the place of that field on the form, and the
    names its readers know its people by."""
    for comment in threads:
        comment.label = fields.field_label(comment.field_path) or comment.field_path
        comment.place = place(comment.field_path)
        comment.author_name, comment.resolver_name = named(comment.author), ""
        if comment.is_resolved:
            comment.resolver_name = named(comment.resolved_by)
        for reply in comment.replies.all():
            reply.author_name = named(reply.author)
    return threads


def age(moment, now=None):
    """ "3 days", "2 minutes": the largest unit only (under a minute, callers say so)."""
    return timesince(moment, now or timezone.now(), depth=1)


def clock(moment):
    """10:02 today; 2025-06-01 10:02 another day."""
    local = timezone.localtime(moment)
    if local.date() != timezone.localdate():
        return local.strftime("%Y-%m-%d %H:%M")
    return local.strftime("%H:%M")


def claim_label(claim):
    """ "Reviewing since 10:02 — Jun"."""
    return _("Reviewing since %(when)s — %(name)s") % {
        "when": clock(claim.claimed_at),
        "name": display_name(claim.reviewer),
    }


def presence_label(row, now):
    seconds = (now - row.last_seen).total_seconds()
    when = _("just now") if seconds < 60 else _("%(age)s ago") % {"age": age(row.last_seen, now)}
    return f"{display_name(row.user)}, {when}"


class ReviewDeskViews:
    """Mixed into CaseAdmin after CaseEditorialViews, whose workflow context it extends."""

    def get_urls(self):
        def view(route, func, name):
            return path(route, self.admin_site.admin_view(func), name=f"cases_case_{name}")

        return [
            view("review-report/", self.review_report_view, "review_report"),
            view("<int:pk>/comments/add/", self.comment_add_view, "comment_add"),
            view(
                "<int:pk>/comments/<int:comment_id>/<str:action>/",
                self.comment_view,
                "comment",
            ),
            view("<int:pk>/claim/<str:action>/", self.claim_view, "claim"),
            view("<int:pk>/presence/", self.presence_view, "presence"),
        ] + super().get_urls()

    # --- the change form ----------------------------------------------------------------

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra = extra_context or {}
        case = extra.get("case") or self.get_object(request, object_id)
        if case is not None and self.has_view_permission(request, case):
            if request.method == "GET":
                presence.presence_record(case=case, user=request.user)
            threads = comments.threads_of(case)
            transitions = extra.get("timeline")
            if transitions is None:
                transitions = case.root.transitions.select_related("user").order_by("-at")
            extra["timeline"] = comments.timeline_of(case, transitions=transitions, threads=threads)
            extra["desk"] = self.desk_context(request, case, threads)
        return super().change_view(request, object_id, form_url, extra)

    def desk_context(self, request, case, threads):
        user, root = request.user, case.root
        place = field_places(case)
        placed(threads, place)
        in_review = case.status == Status.IN_REVIEW
        reviewer = is_reviewer(user)
        claim = claims.active_claim(case) if in_review else None
        review, reviewed = claims.last_review(case)
        current = claims.current_version(case)
        now = timezone.now()
        can_comment = reviewer and case.status in comments.COMMENTABLE
        fields = []
        if can_comment:
            fields = [
                {"path": field_path, "label": label, "place": place(field_path)}
                for field_path, label in comments.commentable_fields(case)
            ]
        return {
            "open_threads": [c for c in threads if not c.is_resolved],
            "resolved_count": sum(1 for c in threads if c.is_resolved),
            "can_comment": can_comment,
            "fields": fields,
            "can_reply": comments.may_reply(user, root),
            "can_resolve": comments.may_resolve(user, root),
            "in_review": in_review,
            "claim": claim,
            "claim_label": claim_label(claim) if claim else "",
            "claimant": display_name(claim.reviewer) if claim else "",
            "mine": claim is not None and claim.reviewer_id == user.pk,
            "can_claim": in_review and reviewer,
            "others": [
                presence_label(row, now) for row in presence.present_others(case=case, user=user)
            ],
            "heartbeat_seconds": presence.heartbeat_seconds(),
            "show_since_review": case.status in comments.COMMENTABLE,
            "review": review,
            "review_label": REVIEW_LABELS.get(review.action, "") if review else "",
            "reviewed_version": reviewed,
            "current_version": current,
            "changed_since_review": bool(
                reviewed and current and reviewed.number != current.number
            ),
        }

    # --- comments -------------------------------------------------------------------------

    def _case_for(self, request, pk):
        case = get_object_or_404(Case.objects.select_related("draft_of"), pk=pk)
        if not self.has_view_permission(request, case):
            raise PermissionDenied
        return case

    def _thread_response(self, request, case, comment, message):
        if is_fetch(request):
            comment = next(c for c in comments.threads_of(case) if c.pk == comment.pk)
            placed([comment], field_places(case))
            root = case.root
            context = {
                "comment": comment,
                "case": case,
                "desk": {
                    "can_reply": comments.may_reply(request.user, root),
                    "can_resolve": comments.may_resolve(request.user, root),
                },
            }
            return HttpResponse(render_to_string(f"{COMMENTS}#thread", context, request))
        self.message_user(request, message, messages.SUCCESS)
        return HttpResponseRedirect(self.change_url(case) + f"#comment-{comment.pk}")

    def _refused(self, request, case, error):
        if is_fetch(request):
            return HttpResponse(str(error), status=400, content_type="text/plain; charset=utf-8")
        self.message_user(request, str(error), messages.ERROR)
        return HttpResponseRedirect(self.change_url(case) + "#review-comments")

    def comment_add_view(self, request, pk):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = self._case_for(request, pk)
        try:
            comment = comments.comment_add(
                case=case,
                user=request.user,
                field_path=request.POST.get("field_path", ""),
                text=request.POST.get("text", ""),
            )
        except WorkflowError as error:
            return self._refused(request, case, error)
        label = fields.field_label(comment.field_path)
        return self._thread_response(
            request, case, comment, _("Comment added on %(field)s.") % {"field": label}
        )

    def comment_view(self, request, pk, comment_id, action):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = self._case_for(request, pk)
        comment = get_object_or_404(CaseComment, pk=comment_id, case=case.draft_of_id or case.pk)
        text = request.POST.get("text", "")
        steps = {
            "reply": (
                lambda: comments.comment_reply(comment=comment, user=request.user, text=text),
                _("Reply added."),
            ),
            "resolve": (
                lambda: comments.comment_resolve(comment=comment, user=request.user, note=text),
                _("Comment resolved."),
            ),
            "reopen": (
                lambda: comments.comment_reopen(comment=comment, user=request.user),
                _("Comment reopened."),
            ),
        }
        if action not in steps:
            raise PermissionDenied
        step, done = steps[action]
        try:
            step()
        except WorkflowError as error:
            return self._refused(request, case, error)
        return self._thread_response(request, case, comment, done)

    # --- claims and presence ---------------------------------------------------------------

    def claim_view(self, request, pk, action):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = self._case_for(request, pk)
        steps = {
            "take": (claims.claim_take, _("You are reviewing %(id)s.")),
            "take_over": (claims.claim_take_over, _("You took over the review of %(id)s.")),
            "release": (claims.claim_release, _("You released the review of %(id)s.")),
        }
        if action not in steps:
            raise PermissionDenied
        function, done = steps[action]
        try:
            function(case=case, user=request.user)
        except WorkflowError as error:
            self.message_user(request, str(error), messages.ERROR)
        else:
            self.message_user(request, done % {"id": case.public_id}, messages.SUCCESS)
        return HttpResponseRedirect(self.change_url(case))

    def presence_view(self, request, pk):
        """The open page's heartbeat: record it, answer who else is here."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = self._case_for(request, pk)
        try:
            presence.presence_record(case=case, user=request.user)
        except WorkflowError as error:
            return HttpResponse(str(error), status=403, content_type="text/plain; charset=utf-8")
        now = timezone.now()
        others = [
            presence_label(row, now)
            for row in presence.present_others(case=case, user=request.user)
        ]
        return HttpResponse(
            render_to_string(
                "admin/cases/case/_presence.html#others", {"desk": {"others": others}}, request
            )
        )

    # --- the list: the review queue --------------------------------------------------------

    def get_queryset(self, request):
        return reports.with_review_state(super().get_queryset(request))

    def get_ordering(self, request):
        """The review queue, and the list of cases in review, wait oldest submission first."""
        if request.GET.get("queue") == "review" or request.GET.get("status__exact") == "in_review":
            return [F("submitted_at").asc(nulls_first=True), "pk"]
        return super().get_ordering(request)

    @staticmethod
    def review_state(case, now=None):
        """What the queue shows of a case: how long it has waited, who is reviewing it, how
        many comments are open."""
        parts = []
        if case.status == Status.IN_REVIEW:
            if case.submitted_at:
                waited = (now or timezone.now()) - case.submitted_at
                parts.append(
                    _("just submitted")
                    if waited.total_seconds() < 60
                    else _("waiting %(age)s") % {"age": age(case.submitted_at, now)}
                )
            if getattr(case, "claimed_by", None):
                parts.append(
                    _("%(name)s reviewing since %(when)s")
                    % {"name": case.claimed_by, "when": clock(case.claimed_at)}
                )
        count = getattr(case, "open_comment_count", 0) or 0
        if count:
            parts.append(
                ngettext("%(n)s open comment", "%(n)s open comments", count) % {"n": count}
            )
        return parts

    @admin.display(description=gettext_lazy("review desk"), ordering="submitted_at")
    def review_column(self, case):
        return " · ".join(self.review_state(case)) or "—"

    # --- the report ----------------------------------------------------------------------

    def review_report_view(self, request):
        if not self.has_view_permission(request):
            raise PermissionDenied
        now = timezone.now()
        waiting = reports.waiting_longest()
        stale = reports.korean_stale_longest()
        for case in waiting:
            case.state = self.review_state(case, now)
        for case in stale:
            case.stale_for = age(case.ko_stale_since, now) if case.ko_stale_since else ""
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Review report"),
            "waiting": waiting,
            "stale": stale,
            "limit": reports.LIMIT,
        }
        return TemplateResponse(request, "admin/cases/case/review_report.html", context)
