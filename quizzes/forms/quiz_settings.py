"""A quiz's settings in the browser: every setting a quiz file holds (docs/quiz-format.md), with
the offering's dates typed in the offering's time zone and the same bounds a file has
(`bank.quizfiles.COUNT_BOUNDS`), so a quiz made here could be written as a file and back."""

from __future__ import annotations

import re

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from content.plainyaml import MAX_SCALAR_CHARS
from courseware.models import Chapter
from courseware.timezones import ZonedDateTimeField, set_zone_of
from quizzes.models import Quiz
from quizzes.services.bank.quizfiles import COUNT_BOUNDS

SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
SETTINGS = (
    "title",
    "chapter",
    "description",
    "position",
    "mode",
    "time_limit_minutes",
    "max_attempts",
    "tries_per_variant",
    "opens_at",
    "due_at",
    "closes_at",
    "late_policy",
    "late_penalty",
    "release",
    "show_answers",
)


class QuizSettingsForm(forms.ModelForm):
    opens_at = ZonedDateTimeField(label="Opens", required=False)
    due_at = ZonedDateTimeField(label="Due", required=False)
    closes_at = ZonedDateTimeField(
        label="Closes", required=False, help_text="Late work is accepted until then."
    )

    class Meta:
        model = Quiz
        fields = SETTINGS
        labels = {
            "time_limit_minutes": "Time limit (minutes)",
            "max_attempts": "Attempts allowed",
            "tries_per_variant": "Tries per part before new numbers",
            "late_penalty": "Late penalty (fraction)",
            "release": "Scores released",
            "show_answers": "Correct answers and solutions shown",
        }
        help_texts = {
            "time_limit_minutes": "Empty: no time limit. Counted on the server from the start.",
            "max_attempts": "Empty: unlimited.",
            "tries_per_variant": "Homework: counted tries on a part before a retry draws "
            "new numbers.",
            "late_penalty": "0.1 takes 10% off a late score; 0 for none.",
            "position": "Order in the quiz list.",
        }
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, offering, **kwargs):
        super().__init__(*args, **kwargs)
        self.offering = offering
        set_zone_of(self, offering.time_zone)
        self.fields["chapter"].queryset = Chapter.objects.for_course(offering.course)
        self.fields["chapter"].required = False
        self.fields["chapter"].empty_label = "none"
        for name, most in COUNT_BOUNDS.items():
            field = self.fields[name]
            field.min_value, field.max_value = (1 if name != "position" else 0), most
            field.widget.attrs.update(min=field.min_value, max=most)
            field.validators = [v for v in field.validators if not hasattr(v, "limit_value")]
            field.validators += [
                MinValueValidator(field.min_value),
                MaxValueValidator(most),
            ]
        self.fields["late_penalty"].widget.attrs.update(min=0, max=1, step="0.01")

    def clean_description(self):
        # A browser sends a textarea's lines with CRLF, and the field strips the ends: the same
        # text is no change.
        text = (self.cleaned_data.get("description") or "").replace("\r\n", "\n")
        if len(text) > MAX_SCALAR_CHARS:
            # A quiz file holds no longer value: the quiz could not be written as a file.
            raise forms.ValidationError(f"At most {MAX_SCALAR_CHARS:,} characters.")
        stored = self.instance.description if self.instance.pk else ""
        return stored if text.strip() == stored.strip() else text

    def clean_late_penalty(self):
        value = self.cleaned_data.get("late_penalty")
        if value is None:
            return 0
        if not 0 <= value <= 1:
            raise forms.ValidationError("A fraction from 0 to 1, like 0.1 for 10%.")
        return value

    def clean(self):
        data = super().clean()
        opens, due, closes = data.get("opens_at"), data.get("due_at"), data.get("closes_at")
        if opens and due and due < opens:
            self.add_error("due_at", "The due date comes after the quiz opens.")
        if due and closes and closes < due:
            self.add_error("closes_at", "The quiz closes at or after its due date.")
        if opens and closes and closes < opens and not due:
            self.add_error("closes_at", "The quiz closes after it opens.")
        if data.get("mode") == "exam" and data.get("tries_per_variant") is None:
            data["tries_per_variant"] = 1
        if data.get("tries_per_variant") is None:
            data["tries_per_variant"] = 3
        if data.get("position") is None:
            data["position"] = 0
        return data

    def error_sentence(self) -> str:
        return " ".join(" ".join(errors) for errors in self.errors.values())


class NewQuizForm(QuizSettingsForm):
    """A new quiz: its settings, and the slug its address and a quiz file would use."""

    class Meta(QuizSettingsForm.Meta):
        fields = ("slug", *SETTINGS)
        help_texts = {
            **QuizSettingsForm.Meta.help_texts,
            "slug": "In the quiz's address: lowercase letters, digits and hyphens; never changes.",
        }

    def clean_slug(self):
        slug = self.cleaned_data["slug"].strip().lower()
        if not SLUG.fullmatch(slug):
            raise forms.ValidationError("Lowercase letters, digits and single hyphens only.")
        if slug == "new":
            raise forms.ValidationError("“new” is the address of this page: choose another.")
        if Quiz.objects.filter(offering=self.offering, slug=slug).exists():
            raise forms.ValidationError(f"This offering has a quiz “{slug}” already.")
        return slug


class PoolForm(forms.Form):
    """A pool of a quiz: its name, how many of its templates each attempt draws, the points of
    each question drawn, and the templates (their slugs, from the published bank)."""

    name = forms.CharField(
        max_length=50,
        help_text="Lowercase letters, digits and hyphens, e.g. roofline-practice. Never changes.",
    )
    draw = forms.IntegerField(
        label="Questions drawn per attempt",
        error_messages={"invalid": "How many to draw: a whole number, like 2."},
    )
    points = forms.DecimalField(
        label="Points per question drawn",
        initial=1,
        decimal_places=2,
        error_messages={"invalid": "Points must be a number, e.g. 1 or 2.5."},
    )
    templates = forms.MultipleChoiceField(
        label="Templates to draw from",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"invalid_choice": "Choose published templates of the bank only."},
    )
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, choices, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["templates"].choices = choices
        self.fields["name"].widget.attrs.update(pattern="[a-z0-9]+(-[a-z0-9]+)*")

    def clean_name(self):
        return self.cleaned_data["name"].strip().lower()
