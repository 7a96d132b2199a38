"""Forms at the studio's edge: a request's fields become typed values here, so the services
take numbers, never raw strings (the services' own rules stay in the services)."""

from __future__ import annotations

from django import forms

from quizzes.services.authoring import DEFAULT_SEEDS, MAX_SEEDS


class ValidateForm(forms.Form):
    """The number of seeds to validate a draft over (empty: the publication gate's count)."""

    seeds = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_SEEDS,
        error_messages={
            "invalid": "The number of seeds must be a whole number.",
            "min_value": "Validate over at least 1 seed.",
            "max_value": (
                f"That is too many seeds: at most {MAX_SEEDS:,} per run keeps the work bounded."
            ),
        },
    )

    def clean_seeds(self) -> int:
        seeds = self.cleaned_data.get("seeds")
        return DEFAULT_SEEDS if seeds is None else seeds

    def error_text(self) -> str:
        return " ".join(message for errors in self.errors.values() for message in errors)
