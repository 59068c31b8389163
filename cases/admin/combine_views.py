"""Duplicate cases in the admin: the change page's notice of the cases one looks like, and
the page that merges two into one (cases.editorial.combining), where the editor chooses
the case to keep. Not the merge page of two concurrent edits (merge_views)."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _

from cases.editorial.combining import PERMISSION, case_combine, combine_refusal
from cases.editorial.duplicates import possible_duplicates
from cases.editorial.rights import WorkflowError
from cases.models import Case, CaseMerge
from cases.rules import CASE_ID_RE


class CaseCombineViews:
    """Mixed into CaseAdmin: the duplicates notice on the change form, and the merge page."""

    def get_urls(self):
        combine = self.admin_site.admin_view(self.combine_view)
        return [path("<int:pk>/combine/", combine, name="cases_case_combine")] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        case = self.get_object(request, object_id)
        extra = extra_context or {}
        if case is not None:
            root = case.root
            extra["duplicates"] = {
                "possible": possible_duplicates(root),
                "merged_into": CaseMerge.objects.filter(absorbed=root)
                .select_related("survivor")
                .first(),
                "absorbed": list(root.absorbed_merges.order_by("absorbed_public_id")),
                "can_merge": request.user.has_perm(PERMISSION),
                "case_pk": root.pk,
            }
        return super().change_view(request, object_id, form_url, extra)

    def combine_view(self, request, pk):
        if not request.user.has_perm(PERMISSION):
            raise PermissionDenied
        case = get_object_or_404(Case.objects.live(), pk=pk)
        other, error = self.other_case(request, case)
        if other is None:
            self.message_user(request, error, messages.ERROR)
            return HttpResponseRedirect(reverse("admin:cases_case_change", args=[case.pk]))
        if request.method == "POST":
            keep = request.POST.get("survivor")
            pair = {str(case.pk): case, str(other.pk): other}
            if keep not in pair:
                error = _("Choose the case to keep.")
            else:
                survivor = pair.pop(keep)
                (absorbed,) = pair.values()
                try:
                    survivor, added = case_combine(
                        absorbed=absorbed,
                        survivor=survivor,
                        user=request.user,
                        note=request.POST.get("note", ""),
                    )
                except WorkflowError as refused:
                    error = str(refused)
                else:
                    self.message_user(
                        request,
                        _(
                            "%(absorbed)s was merged into %(survivor)s: %(count)s source(s) "
                            "added; %(absorbed)s now leads to %(survivor)s."
                        )
                        % {
                            "absorbed": absorbed.public_id,
                            "survivor": survivor.public_id,
                            "count": added,
                        },
                        messages.SUCCESS,
                    )
                    return HttpResponseRedirect(
                        reverse("admin:cases_case_change", args=[survivor.pk])
                    )
        # Kept by default: the published one, else the older id (the one readers know).
        default = min((case, other), key=lambda c: (c.status != Case.Status.PUBLISHED, c.public_id))
        refusals = {
            c.pk: combine_refusal(
                request.user, survivor=c, absorbed=other if c.pk == case.pk else case
            )
            for c in (case, other)
        }
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Merge duplicate cases"),
            "cases": [
                (c, refusals[c.pk], list(c.sources.order_by("position"))) for c in (case, other)
            ],
            "default_pk": request.POST.get("survivor") or str(default.pk),
            "other": other,
            "error": error if request.method == "POST" else None,
            "note": request.POST.get("note", ""),
        }
        return TemplateResponse(request, "admin/cases/case/combine.html", context)

    @staticmethod
    def other_case(request, case):
        """The case named by `with` (a primary key or an id); (None, why) when none is."""
        named = (request.POST.get("with") or request.GET.get("with") or "").strip()
        if not named:
            return None, _("Name the case to merge with.")
        cases = Case.objects.live()
        if CASE_ID_RE.fullmatch(named.upper()):
            other = cases.filter(public_id=named.upper()).first()
        elif named.isdigit() and len(named) < 12:
            other = cases.filter(pk=int(named)).first()
        else:
            other = None
        if other is None:
            return None, _("No case %(id)s to merge with.") % {"id": named[:40]}
        if other.pk == case.pk:
            return None, _("A case cannot be merged into itself.")
        return other, None
