"""The instructor pages' forms: the gradebook's query string, a score override, an extension.

The gradebook form reads a query string anyone can type: a value it cannot use (an unknown
filter, a sort that is no quiz slug, a page that is no positive number) is left at its default
and named in a message on the page, never a server error. The page and its CSV export read the
same form, so what the instructor sees is what they download.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django import forms

from quizzes.models import Quiz
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


class ExtensionForm(forms.Form):
    quiz = forms.ModelChoiceField(queryset=Quiz.objects.none(), empty_label=None)
    due_at = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    closes_at = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    extra_minutes = forms.IntegerField(required=False, min_value=0, max_value=10_000, initial=0)
    reason = forms.CharField(required=False, max_length=300)

    def __init__(self, *args, offering, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["quiz"].queryset = Quiz.objects.for_offering(offering)
