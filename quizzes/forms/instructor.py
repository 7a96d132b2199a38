"""The instructor pages' forms: the gradebook's query string, a score override, a student's or
a group's extension (dates typed in the offering's time zone), an accommodation.

The gradebook form reads a query string anyone can type: a value it cannot use (an unknown
filter, a sort that is no quiz slug, a page that is no positive number) is left at its default
and named in a message on the page, never a server error. The page and its CSV export read the
same form, so what the instructor sees is what they download.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django import forms

from courseware.models import StudentGroup
from courseware.timezones import ZonedDateTimeField, set_zone_of
from quizzes.models import Quiz
from quizzes.models.accommodations import MULTIPLIER_MAX, MULTIPLIER_MIN
from quizzes.services.instructor import FILTERS

SEARCH_LENGTH = 100
DIAGNOSIS_LENGTH = 50


class GradebookForm(forms.Form):
    """The gradebook's search, filter, sort and page, from `request.GET`."""

    q = forms.CharField(label="Search", required=False)
    show = forms.ChoiceField(
        label="Show",
        required=False,
        choices=list(FILTERS.items()),
        error_messages={"invalid_choice": "choose one of the listed filters."},
    )
    # "name", "total" (the course total), or the slug of the quiz whose scores order the rows
    # (a slug no quiz has sorts by name, as a quiz removed since the link was made would).
    sort = forms.SlugField(
        label="Sort",
        required=False,
        max_length=100,
        error_messages={"invalid": "a sort is “name”, “total” or a quiz's slug."},
    )
    dir = forms.ChoiceField(
        label="Order",
        required=False,
        choices=[("asc", "ascending"), ("desc", "descending")],
        error_messages={"invalid_choice": "an order is “asc” or “desc”."},
    )
    diagnosis = forms.CharField(label="Diagnosis", required=False)
    group = forms.TypedChoiceField(
        label="Group",
        required=False,
        coerce=int,
        empty_value=None,
        error_messages={"invalid_choice": "choose one of this offering's groups."},
    )
    inactive = forms.ChoiceField(
        label="Deactivated students",
        required=False,
        choices=[("", "shown"), ("hide", "hidden")],
        error_messages={"invalid_choice": "deactivated students are shown or hidden."},
    )
    page = forms.IntegerField(
        label="Page",
        required=False,
        min_value=1,
        error_messages={"invalid": "a page is a whole number.", "min_value": "pages start at 1."},
    )

    DEFAULTS = {
        "q": "",
        "show": "",
        "sort": "name",
        "dir": "asc",
        "diagnosis": "",
        "group": None,
        "inactive": "",
        "page": 1,
    }
    KEPT = ("q", "show", "group", "inactive", "sort", "dir", "diagnosis")

    def __init__(self, data=None, *, groups=(), **kwargs):
        super().__init__(data if data is not None else {}, **kwargs)
        self.fields["group"].choices = [("", "All students")] + [
            (str(g.pk), str(g)) for g in groups
        ]
        self.is_valid()

    # Long text is cut rather than refused: a search box should not fail on a pasted paragraph.
    def clean_q(self) -> str:
        return self.cleaned_data["q"][:SEARCH_LENGTH]

    def clean_diagnosis(self) -> str:
        return self.cleaned_data["diagnosis"][:DIAGNOSIS_LENGTH]

    @property
    def values(self) -> dict:
        """Every field's value: what was typed if usable, else its default."""
        cleaned = getattr(self, "cleaned_data", {})
        return {
            name: cleaned[name] if cleaned.get(name) not in (None, "") else default
            for name, default in self.DEFAULTS.items()
        }

    @property
    def ignored(self) -> list[str]:
        """What was typed and not used, one sentence per field, for the page to say."""
        return [
            f"{self.fields[name].label} “{str(self.data.get(name, ''))[:40]}” was ignored: "
            + " ".join(errors)
            for name, errors in self.errors.items()
        ]

    def choices(self) -> dict:
        """The keyword arguments of `instructor.gradebook_students` (and so of the CSV)."""
        values = self.values
        sort = values["sort"] if values["sort"] in ("name", "total") else "quiz"
        return {
            "search": values["q"],
            "sort": sort,
            "quiz_slug": values["sort"],
            "descending": values["dir"] == "desc",
            "show": values["show"],
            "diagnosis": values["diagnosis"],
            "group": values["group"],
            "hide_inactive": values["inactive"] == "hide",
        }

    def query(self) -> str:
        """The query string of these choices without the page (for page and export links)."""
        values = self.values
        return urlencode(
            [(name, values[name]) for name in self.KEPT if values[name] != self.DEFAULTS[name]]
        )

    def query_without(self, *names: str) -> str:
        """`query` without some choices (a column header sets its own sort and order)."""
        values = self.values
        return urlencode(
            [
                (name, values[name])
                for name in self.KEPT
                if name not in names and values[name] != self.DEFAULTS[name]
            ]
        )

    @property
    def filtered(self) -> bool:
        values = self.values
        return bool(
            values["q"]
            or values["show"]
            or values["diagnosis"]
            or values["group"] is not None
            or values["inactive"]
        )


# The override form's fields as the page labels them, for its one-line refusal message.
OVERRIDE_FIELDS = {"score": "New score", "reason": "Reason", "item": "Applies to"}


class OverrideForm(forms.Form):
    item = forms.IntegerField(required=False, widget=forms.HiddenInput)
    score = forms.DecimalField(max_digits=8, decimal_places=3, min_value=0)
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=2000)

    def error_sentence(self) -> str:
        return " ".join(
            f"{OVERRIDE_FIELDS.get(name, name)}: {' '.join(errors)}"
            for name, errors in self.errors.items()
        )


class _TermsForm(forms.Form):
    """Dates typed in the offering's zone, extra minutes and attempts, a reason."""

    opens_at = ZonedDateTimeField(label="Opens", required=False)
    due_at = ZonedDateTimeField(label="Due", required=False)
    closes_at = ZonedDateTimeField(label="Closes", required=False)
    extra_minutes = forms.IntegerField(
        label="Extra minutes", required=False, min_value=0, max_value=10_000, initial=0
    )
    extra_attempts = forms.IntegerField(
        label="Extra attempts", required=False, min_value=0, max_value=100, initial=0
    )
    reason = forms.CharField(label="Reason", required=False, max_length=300)

    def __init__(self, *args, offering, **kwargs):
        super().__init__(*args, **kwargs)
        set_zone_of(self, offering.time_zone)
        self.fields["quiz"].queryset = Quiz.objects.for_offering(offering)

    def clean(self):
        data = super().clean()
        for name in ("extra_minutes", "extra_attempts"):
            data[name] = data.get(name) or 0
        return data

    def error_sentence(self) -> str:
        return " ".join(
            (f"{self.fields[name].label}: " if name in self.fields else "") + " ".join(errors)
            for name, errors in self.errors.items()
        )


class ExtensionForm(_TermsForm):
    """One student's extension on one quiz."""

    quiz = forms.ModelChoiceField(label="Quiz", queryset=Quiz.objects.none(), empty_label=None)
    field_order = ["quiz", "opens_at", "due_at", "closes_at", "extra_minutes", "extra_attempts"]


class GroupExtensionForm(_TermsForm):
    """A group's extension on one quiz."""

    quiz = forms.ModelChoiceField(label="Quiz", queryset=Quiz.objects.none(), empty_label=None)
    group = forms.ModelChoiceField(
        label="Group", queryset=StudentGroup.objects.none(), empty_label=None
    )
    field_order = [
        "quiz",
        "group",
        "opens_at",
        "due_at",
        "closes_at",
        "extra_minutes",
        "extra_attempts",
    ]

    def __init__(self, *args, offering, **kwargs):
        super().__init__(*args, offering=offering, **kwargs)
        self.fields["group"].queryset = StudentGroup.objects.filter(offering=offering)


class AccommodationForm(forms.Form):
    """A time multiplier on every timed quiz of the offering, for a student or a group."""

    time_multiplier = forms.DecimalField(
        label="Time multiplier",
        max_digits=4,
        decimal_places=2,
        min_value=MULTIPLIER_MIN,
        max_value=MULTIPLIER_MAX,
        help_text="1.5 gives 60 minutes for a 40-minute exam; every timed quiz of the offering.",
        widget=forms.TextInput(attrs={"inputmode": "decimal", "class": "short"}),
    )
    reason = forms.CharField(label="Reason", required=False, max_length=300)
