"""Each editor's own notification preferences, reached from the admin's user tools.

Any staff account may set its own (the page needs no model permission); superusers also
see everyone's in the usual list, to learn who turned emails off.
"""

from django import forms
from django.contrib import admin, messages
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _

from cases.editorial import notifications
from cases.editorial.rights import WorkflowError
from cases.models import EditorPreference


class PreferenceForm(forms.ModelForm):
    class Meta:
        model = EditorPreference
        fields = ["email_notifications", "language"]


@admin.register(EditorPreference)
class EditorPreferenceAdmin(admin.ModelAdmin):
    list_display = ["user", "email_notifications", "language"]
    list_filter = ["email_notifications", "language"]
    list_select_related = ["user"]
    readonly_fields = ["user"]

    def get_urls(self):
        mine = self.admin_site.admin_view(self.mine_view)
        return [path("mine/", mine, name="cases_preferences")] + super().get_urls()

    def has_add_permission(self, request):
        return False  # each person's row is made by their own page

    def mine_view(self, request):
        preference = EditorPreference.of(request.user)
        form = PreferenceForm(request.POST or None, instance=preference)
        if request.method == "POST" and form.is_valid():
            try:
                notifications.preferences_save(
                    user=request.user,
                    email_notifications=form.cleaned_data["email_notifications"],
                    language=form.cleaned_data["language"],
                )
            except WorkflowError as error:
                self.message_user(request, str(error), messages.ERROR)
            else:
                self.message_user(request, _("Your preferences are saved."), messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:cases_preferences"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Notification settings"),
            "form": form,
            "email": request.user.email,
        }
        return TemplateResponse(request, "admin/cases/preferences.html", context)
