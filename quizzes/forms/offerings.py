"""The site administrator's forms: an offering's names and time zone, a copy of an offering (how
far its dates move), and a person given a staff role in it.

Every field is checked here or by the service the view calls (courseware.offerings,
quizzes.services.offerings); a value that cannot be used comes back beside its field with what
was typed, never as a server error.
"""

from __future__ import annotations

import zoneinfo
from functools import lru_cache

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from courseware.models import Offering, Role
from courseware.offerings import check_new_slug

STAFF_ROLES = [
    (Role.INSTRUCTOR.value, "Instructor"),
    (Role.TEACHING_ASSISTANT.value, "Teaching assistant"),
]


@lru_cache(maxsize=1)
def time_zone_choices() -> list[tuple[str, str]]:
    names = sorted(zoneinfo.available_timezones() - {"localtime", "Factory"})
    return [(name, name.replace("_", " ")) for name in names]


class OfferingNamesForm(forms.Form):
    """What an offering is called, and the zone its dates are set and shown in."""

    title = forms.CharField(
        max_length=200, help_text="As students see it, like “The Hardware Reality, Fall 2027”."
    )
    term = forms.CharField(max_length=100, required=False, help_text="Like Fall 2027.")
    section = forms.CharField(max_length=50, required=False, help_text="Like 2, or B.")
    time_zone = forms.ChoiceField(choices=time_zone_choices, initial="UTC")

    @classmethod
    def of(cls, offering: Offering) -> OfferingNamesForm:
        return cls(
            initial={
                "title": offering.title,
                "term": offering.term,
                "section": offering.section,
                "time_zone": offering.time_zone,
            }
        )


class NewOfferingForm(OfferingNamesForm):
    """A new offering: its names and the short name in its address (never changed after)."""

    slug = forms.CharField(
        label="Short name",
        max_length=Offering._meta.get_field("slug").max_length,
        help_text="In every address of the offering (/o/<short name>/), and never changed: "
        "letters, digits and hyphens, like fall-2027.",
    )

    field_order = ["title", "slug", "term", "section", "time_zone"]

    def clean_slug(self):
        """The service checks it again as it creates (a name taken a moment ago); here the
        message goes beside the field it is about."""
        try:
            return check_new_slug(self.cleaned_data["slug"])
        except ValidationError as error:
            raise forms.ValidationError(error.messages) from None


class CopyOfferingForm(NewOfferingForm):
    """A copy: the same quizzes and settings, dates moved by a number of days."""

    shift_days = forms.IntegerField(
        label="Move every date by (days)",
        min_value=-3650,
        max_value=3650,
        initial=0,
        help_text="Opening, due and close dates of every quiz move by this many days "
        "(182 for half a year, 364 for the same weekday a year later).",
    )
    instructors = forms.ModelMultipleChoiceField(
        queryset=get_user_model().objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Who teaches the copy (more can be added on its page).",
    )

    field_order = ["title", "slug", "term", "section", "time_zone", "shift_days", "instructors"]

    def __init__(self, *args, source: Offering, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["instructors"].queryset = (
            get_user_model()
            .objects.filter(enrollments__offering=source, enrollments__role=Role.INSTRUCTOR)
            .order_by("last_name", "username")
        )
        self.fields["instructors"].label_from_instance = lambda u: (
            f"{u.get_full_name() or u.username} ({u.username})"
        )


class StaffForm(forms.Form):
    """A person, by username, and the staff role they get in the offering."""

    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=STAFF_ROLES, initial=Role.INSTRUCTOR.value)

    def clean_username(self):
        name = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username=name).first()
        if user is None:
            raise forms.ValidationError(f"No account is called {name!r}.")
        return user
