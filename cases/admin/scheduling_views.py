"""Scheduling on the case's workflow panel: "Publish at" a case in review, "Withdraw at" a
published one, and cancelling what is scheduled. Each view is thin: it reads the form and
calls cases.editorial.scheduling."""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases.editorial import scheduling
from cases.editorial import transitions as workflow
from cases.editorial.rights import WorkflowError, is_reviewer
from cases.models import Case, ScheduledTransition

Action = ScheduledTransition.Action


class ScheduleForm(forms.Form):
    action = forms.ChoiceField(label=gettext_lazy("Step"), choices=Action.choices)
    # <input type="datetime-local"> sends "2025-06-01T09:30": ISO 8601, which the field
    # reads, in the site's time zone.
    run_at = forms.DateTimeField(label=gettext_lazy("When"))
    note = forms.CharField(label=gettext_lazy("Note"), required=False, max_length=10_000)
    confirm_stale_korean = forms.BooleanField(required=False)


def case_page(case):
    return reverse("admin:cases_case_change", args=[case.pk])


class CaseSchedulingViews:
    """Mixed into CaseAdmin: the schedule part of the workflow panel and its two views."""

    def get_urls(self):
        def view(route, func, name):
            return path(route, self.admin_site.admin_view(func), name=f"cases_case_{name}")

        return [
            view("<int:pk>/schedule/", self.schedule_view, "schedule"),
            view("schedules/<int:pk>/cancel/", self.cancel_schedule_view, "cancel_schedule"),
        ] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        case = self.get_object(request, object_id)
        extra = extra_context or {}
        if case is not None:
            extra["schedule_panel"] = self.schedule_panel(request.user, case)
        return super().change_view(request, object_id, form_url, extra)

    def schedule_panel(self, user, case):
        """What the panel shows: the active schedule, or the step the user may schedule."""
        active = (
            ScheduledTransition.objects.active()
            .filter(case=case)
            .select_related("scheduled_by")
            .first()
        )
        action = None
        if active is None:
            for name in (Action.APPROVE, Action.WITHDRAW):
                if workflow.refusal(user, workflow.TRANSITIONS[name], case) is None:
                    action = name
        return {
            "active": active,
            "can_cancel": active is not None and is_reviewer(user),
            "action": action,
            "now": timezone.localtime(),
            "ask_stale_korean": action == Action.APPROVE and case.ko_stale,
        }

    def schedule_view(self, request, pk):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = get_object_or_404(Case, pk=pk)
        form = ScheduleForm(request.POST)
        if not form.is_valid():
            for field, errors in form.errors.items():
                for error in errors:
                    self.message_user(
                        request, f"{form.fields[field].label}: {error}", messages.ERROR
                    )
            return HttpResponseRedirect(case_page(case))
        data = form.cleaned_data
        try:
            schedule = scheduling.case_schedule(
                case=case,
                user=request.user,
                action=data["action"],
                run_at=data["run_at"],
                note=data["note"],
                confirm_stale_korean=data["confirm_stale_korean"],
            )
        except WorkflowError as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(case_page(case))
        self.message_user(request, scheduling.scheduled_note(schedule), messages.SUCCESS)
        return HttpResponseRedirect(case_page(case))

    def cancel_schedule_view(self, request, pk):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        schedule = get_object_or_404(ScheduledTransition, pk=pk)
        if not request.user.has_perm("cases.view_case"):
            raise PermissionDenied
        try:
            scheduling.case_cancel_schedule(schedule=schedule, user=request.user)
        except WorkflowError as error:
            self.message_user(request, str(error), messages.ERROR)
        else:
            self.message_user(request, _("The scheduled step is cancelled."), messages.SUCCESS)
        if schedule.case_id:
            return HttpResponseRedirect(case_page(schedule.case))
        return HttpResponseRedirect(reverse("admin:index"))
