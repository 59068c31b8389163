"""The merge page: the second of two concurrent saves sees theirs and mine, part by part.

CaseForm.clean finds the conflict (and the editor's whole case, valid); this mixin shows
the merge page instead of the form, and saves the editor's choices through
cases.editorial.merging. Nothing is written until the editor chooses.
"""

import json

from django.contrib import messages
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext as _

from cases.editorial import merging
from cases.editorial.drafts import CaseInvalid
from cases.editorial.rights import WorkflowError
from cases.models import Case


class CaseMergeViews:
    """Mixed into CaseAdmin: the merge page, shown in place of a conflicting save."""

    def get_urls(self):
        merge = self.admin_site.admin_view(self.merge_view)
        return [path("<int:pk>/merge/", merge, name="cases_case_merge")] + super().get_urls()

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        form = context["adminform"].form
        mine = getattr(form, "merge_with", None)
        if in_conflict(form):
            forget_stale_row_ids(context)
        if change and obj is not None and mine is not None and only_the_conflict(context):
            base = merging.unsign_base(form.data.get(form.add_prefix("opened_as")))
            return self.merge_page(request, obj, mine, base=base)
        return super().render_change_form(request, context, add, change, form_url, obj)

    def merge_page(self, request, case, mine, *, base=None, choices=None, problems=(), **extra):
        theirs, version, differences = merging.merge_state(case, mine, base)
        if not differences:
            self.message_user(
                request,
                _("Your version is the same as the one saved meanwhile: nothing to merge."),
                messages.INFO,
            )
            return HttpResponseRedirect(self.change_url(case))
        choices = choices or {}
        for difference in differences:
            difference.chosen = choices.get(difference.key) or difference.proposed
        case = Case.objects.select_related("last_edited_by").get(pk=case.pk)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "case": case,
            "title": _("Merge your changes into %(id)s") % {"id": case.public_id},
            "differences": differences,
            "same_count": len(merging.PARTS) - len(differences),
            "mine_json": json.dumps(mine, ensure_ascii=False),
            "base_token": merging.sign_base(base) if base is not None else "",
            "theirs_version": version,
            "problems": problems,
            **extra,
        }
        return TemplateResponse(request, "admin/cases/case/merge.html", context)

    def merge_view(self, request, pk):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = get_object_or_404(Case, pk=pk)
        if not self.has_change_permission(request, case):
            raise PermissionDenied
        try:
            mine = merging.normal_mine(json.loads(request.POST.get("mine", "")))
            theirs_version = int(request.POST.get("theirs_version", ""))
        except (ValueError, RecursionError, CaseInvalid):  # not the page's own: damaged
            self.message_user(
                request, _("The merge form arrived damaged; open the case again."), messages.ERROR
            )
            return HttpResponseRedirect(self.change_url(case))
        base = merging.unsign_base(request.POST.get("base", ""))
        take_all = request.POST.get("take_all")
        choices = {
            key: take_all if take_all in (merging.THEIRS, merging.MINE) else request.POST.get(key)
            for key in merging.PARTS_BY_KEY
        }
        try:
            saved = merging.case_save_merged(
                case=case,
                mine=mine,
                choices=choices,
                theirs_version=theirs_version,
                user=request.user,
            )
        except CaseInvalid as invalid:  # the merged case breaks a rule
            return self.merge_page(
                request, case, mine, base=base, choices=choices, problems=invalid.problems
            )
        except WorkflowError as refused:  # a conflict again, a choice missing, no right
            return self.merge_page(
                request, case, mine, base=base, choices=choices, refusal=str(refused)
            )
        self.log_change(request, saved, _("Merged with a save made meanwhile."))
        self.message_user(
            request, _("Your changes were merged with theirs and saved."), messages.SUCCESS
        )
        return HttpResponseRedirect(self.change_url(saved))


def in_conflict(form):
    return any(error.code == "edit_conflict" for error in form.non_field_errors().as_data())


def forget_stale_row_ids(context):
    """The other save wrote the inline rows anew, so the row ids the editor's form carries
    are gone ("Select a valid choice"): no fault of the editor's, and no loss, since a save
    writes the rows from their content, never by id."""
    for inline in context["inline_admin_formsets"]:
        for row in inline.formset.forms:
            if "id" in row.errors:
                del row.errors["id"]


def only_the_conflict(context):
    """Whether the conflict is the form's only problem: otherwise the editor corrects the
    others first, in the form, and meets the merge on the next save."""
    form = context["adminform"].form
    if set(form.errors) != {NON_FIELD_ERRORS}:
        return False
    if any(error.code != "edit_conflict" for error in form.errors.as_data()[NON_FIELD_ERRORS]):
        return False
    return not any(
        inline.formset.total_error_count() for inline in context["inline_admin_formsets"]
    )
