"""What the admin's import takes: the upload form, a limit on the file's size that the page
can explain, and the file's name as a page shows it (cases.admin.exchange_views)."""

from pathlib import Path

from django import forms
from django.core.files.uploadhandler import StopUpload, TemporaryFileUploadHandler
from django.utils.translation import gettext_lazy

from cases.models import Case


def size_label(size):
    return f"{size / (1024 * 1024):g} MiB"


class LimitedUpload(TemporaryFileUploadHandler):
    """Django's own limits do not stop a large file: DATA_UPLOAD_MAX_MEMORY_SIZE counts only
    the form's other fields, and FILE_UPLOAD_MAX_MEMORY_SIZE only chooses disk over memory.
    This handler stores at most `limit` bytes (always on disk: the importer reads a path),
    then stops storing and reads the rest of the request away, so that the page can say why
    instead of a 400."""

    def __init__(self, request, limit):
        super().__init__(request)
        self.limit = limit
        self.received = 0
        self.too_large = False

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > self.limit:
            self.too_large = True
            raise StopUpload(connection_reset=False)
        return super().receive_data_chunk(raw_data, start)


class ImportUploadForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("File"),
        widget=forms.FileInput(attrs={"accept": ".json,.jsonl,application/json"}),
        error_messages={
            "required": gettext_lazy("Choose a .json or .jsonl file to import."),
            "empty": gettext_lazy("The file is empty: it holds no case."),
            "invalid": gettext_lazy("No file was received: choose it again."),
        },
        help_text=gettext_lazy(
            "A case object, an array of them (.json) or one a line (.jsonl), in the case "
            "exchange format."
        ),
    )
    status = forms.ChoiceField(
        label=gettext_lazy("Status of new cases"),
        choices=Case.Status.choices,
        initial=Case.Status.PUBLISHED,
        help_text=gettext_lazy("Cases already in the library keep their status."),
    )
    force = forms.BooleanField(
        label=gettext_lazy("Overwrite cases that an editor changed since their last import"),
        required=False,
    )


def shown_file_name(name):
    """The uploaded file's name, fit for a page and a transition's note."""
    name = "".join(ch if ch.isprintable() else "?" for ch in Path(name or "").name)
    return name[:100] or "upload"


def json_lines_for(name):
    """JSON Lines for .jsonl, JSON for .json; otherwise decided from the content."""
    suffix = Path(name).suffix.lower()
    return {".jsonl": True, ".json": False}.get(suffix)
