"""The case's editorial pages in the admin: the workflow panel's steps, the pending
revision, the translation confirmation, and the history (versions, compare, restore). Each
view is thin: it calls cases.editorial and says what happened."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _

from cases.editorial import drafts, history
from cases.editorial import transitions as workflow
from cases.editorial.rights import WorkflowError
from cases.editorial.translation_state import stale_fields
from cases.models import Case, CaseVersion

Status = Case.Status


class CaseEditorialViews:
    """Mixed into CaseAdmin: the workflow panel on the change form and the views it posts to."""

    def get_urls(self):
        def view(route, func, name):
            return path(route, self.admin_site.admin_view(func), name=f"cases_case_{name}")

        return [
            view("<int:pk>/transition/<str:action>/", self.transition_view, "transition"),
            view("<int:pk>/revise/", self.revise_view, "revise"),
            view("<int:pk>/confirm-translation/", self.confirm_translation_view, "confirm"),
            view("<int:pk>/versions/", self.versions_view, "versions"),
            view("<int:pk>/versions/compare/", self.compare_view, "compare"),
            view("<int:pk>/versions/<int:number>/restore/", self.restore_view, "restore"),
        ] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        case = self.get_object(request, object_id)
        extra = extra_context or {}
        if case is not None:
            root = case.root
            copy = Case.objects.filter(draft_of=case).first() if not case.draft_of_id else None
            transitions = workflow.available_transitions(request.user, case)
            extra.update(
                {
                    "case": case,
                    "root_case": root,
                    "working_copy": copy,
                    "transitions": transitions,
                    "stale_korean_approval": case.ko_stale
                    and any(t.name == "approve" for t in transitions),
                    "timeline": root.transitions.select_related("user").order_by("-at"),
                    "can_revise": case.status == Status.PUBLISHED
                    and not case.draft_of_id
                    and request.user.has_perm("cases.change_case"),
                    "stale_fields": stale_fields(case),
                }
            )
        return super().change_view(request, object_id, form_url, extra)

    def change_url(self, case):
        return reverse("admin:cases_case_change", args=[case.pk])

    def transition_view(self, request, pk, action):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = get_object_or_404(Case, pk=pk)
        functions = {
            "submit": workflow.case_submit,
            "approve": workflow.case_approve,
            "request_changes": workflow.case_request_changes,
            "withdraw": workflow.case_withdraw,
            "reopen": workflow.case_reopen,
        }
        if action not in functions:
            raise PermissionDenied
        options = {"note": request.POST.get("note", "")}
        if action == "approve":
            options["confirm_stale_korean"] = bool(request.POST.get("confirm_stale_korean"))
        try:
            result = functions[action](case=case, user=request.user, **options)
        except WorkflowError as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(self.change_url(case))
        self.message_user(
            request,
            _("%(id)s: %(action)s done; the case is now %(status)s.")
            % {
                "id": result.public_id,
                "action": workflow.TRANSITIONS[action].label,
                "status": result.get_status_display().lower(),
            },
            messages.SUCCESS,
        )
        return HttpResponseRedirect(self.change_url(result))

    def revise_view(self, request, pk):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = get_object_or_404(Case, pk=pk)
        try:
            copy = workflow.case_start_revision(case=case, user=request.user)
        except WorkflowError as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(self.change_url(case))
        self.message_user(
            request,
            _(
                "You are editing a pending revision. The public page keeps the published "
                "text until a reviewer approves this revision."
            ),
            messages.INFO,
        )
        return HttpResponseRedirect(self.change_url(copy))

    def confirm_translation_view(self, request, pk):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = get_object_or_404(Case, pk=pk)
        try:
            drafts.case_confirm_translation(case=case, user=request.user)
        except WorkflowError as error:
            self.message_user(request, str(error), messages.ERROR)
        else:
            self.message_user(request, _("The Korean text is marked as current."), messages.SUCCESS)
        return HttpResponseRedirect(self.change_url(case))

    def versions_context(self, request, case, **extra):
        root = case.root
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "case": case,
            "title": _("History of %(id)s") % {"id": root.public_id},
            "versions": CaseVersion.objects.filter(public_id=root.public_id)
            .select_related("saved_by")
            .order_by("-number"),
            "can_restore": self.has_change_permission(request, case)
            or (case.status == Status.PUBLISHED and request.user.has_perm("cases.change_case")),
            **extra,
        }

    def versions_view(self, request, pk):
        case = get_object_or_404(Case, pk=pk)
        if not self.has_view_permission(request, case):
            raise PermissionDenied
        return TemplateResponse(
            request, "admin/cases/case/versions.html", self.versions_context(request, case)
        )

    def compare_view(self, request, pk):
        case = get_object_or_404(Case, pk=pk)
        if not self.has_view_permission(request, case):
            raise PermissionDenied
        root = case.root
        versions = CaseVersion.objects.filter(public_id=root.public_id)
        try:
            older = versions.get(number=int(request.GET.get("a", "")))
            newer = versions.get(number=int(request.GET.get("b", "")))
        except (ValueError, CaseVersion.DoesNotExist):
            self.message_user(request, _("Choose two versions to compare."), messages.ERROR)
            return HttpResponseRedirect(reverse("admin:cases_case_versions", args=[case.pk]))
        if older.number > newer.number:
            older, newer = newer, older
        context = self.versions_context(
            request, case, older=older, newer=newer, changes=history.compare(older, newer)
        )
        return TemplateResponse(request, "admin/cases/case/compare.html", context)

    def restore_view(self, request, pk, number):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = get_object_or_404(Case, pk=pk)
        version = get_object_or_404(CaseVersion, public_id=case.root.public_id, number=number)
        try:
            target = drafts.case_restore(case=case, version=version, user=request.user)
        except WorkflowError as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(reverse("admin:cases_case_versions", args=[case.pk]))
        self.message_user(
            request, _("Version %(n)s restored.") % {"n": version.number}, messages.SUCCESS
        )
        return HttpResponseRedirect(self.change_url(target))
