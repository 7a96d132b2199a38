"""The roster page's forms: one student to add, a group to make, a roster file to read. The
rules (whose account is whose, what a file may hold) are `courseware.roster`'s; these only
turn the request into typed values with a message for anything they cannot use."""

from __future__ import annotations

from django import forms

from courseware.models import GroupKind, StudentGroup
from courseware.roster_file import MAX_BYTES


class AddStudentForm(forms.Form):
    username = forms.CharField(label="Username", max_length=150)
    first_name = forms.CharField(label="First name", max_length=150, required=False)
    last_name = forms.CharField(label="Last name", max_length=150, required=False)
    email = forms.EmailField(label="E-mail", required=False)
    group = forms.ModelChoiceField(
        label="Group", queryset=StudentGroup.objects.none(), required=False, empty_label="none"
    )

    def __init__(self, *args, offering, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["group"].queryset = StudentGroup.objects.filter(offering=offering)


class GroupForm(forms.Form):
    name = forms.CharField(label="Name", max_length=80)
    kind = forms.ChoiceField(label="Kind", choices=GroupKind.choices, initial=GroupKind.SECTION)


class RosterFileForm(forms.Form):
    file = forms.FileField(label="Roster file (CSV)")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_BYTES:
            raise forms.ValidationError(f"it is larger than {MAX_BYTES // 1024} KB.")
        return upload

    def error_sentence(self) -> str:
        return " ".join(" ".join(errors) for errors in self.errors.values())
