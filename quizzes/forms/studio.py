"""Forms at the studio's edge: a request's fields become typed values here, so the services
take numbers, never raw strings (the services' own rules stay in the services)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django import forms

from quizzes.services.authoring import DEFAULT_SEEDS, MAX_POINTS, MAX_SEED, MAX_SEEDS


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


class PreviewSeedForm(forms.Form):
    """The editor's seed box: which variant of the draft the preview shows (empty: seed 0)."""

    seed = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=MAX_SEED,
        error_messages={
            "invalid": f"A seed is a whole number from 0 to {MAX_SEED:,}; showing seed 0.",
            "min_value": f"A seed is a whole number from 0 to {MAX_SEED:,}; showing seed 0.",
            "max_value": f"A seed is a whole number from 0 to {MAX_SEED:,}; showing seed 0.",
        },
    )

    def seed_or_default(self) -> int:
        """The seed asked for, or 0 when the box is empty or its text is refused."""
        if self.is_valid() and self.cleaned_data["seed"] is not None:
            return self.cleaned_data["seed"]
        return 0

    def error_text(self) -> str:
        return " ".join(message for errors in self.errors.values() for message in errors)


POINTS_RANGE = f"Points must be more than 0 and at most {MAX_POINTS}."


class QuizItemForm(forms.Form):
    """Adding a published template to a quiz: which template, its points, its position."""

    template = forms.CharField(
        max_length=100, error_messages={"required": "Choose a published template to add."}
    )
    # Bounded like the column (two decimals, at most 1000): "1e999" and "-1" are refused here.
    points = forms.DecimalField(
        required=False,
        error_messages={"invalid": "Points must be a number, e.g. 1 or 2.5."},
    )
    position = forms.IntegerField(
        required=False,
        min_value=1,
        error_messages={
            "invalid": "The position must be a whole number.",
            "min_value": "Positions start at 1.",
        },
    )

    def clean_points(self) -> Decimal:
        points = self.cleaned_data.get("points")
        if points is None:
            return Decimal(1)
        if not Decimal(0) < points <= MAX_POINTS:
            raise forms.ValidationError(POINTS_RANGE)
        points = points.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        if points == 0:
            raise forms.ValidationError(POINTS_RANGE)
        return points

    def error_text(self) -> str:
        return " ".join(message for errors in self.errors.values() for message in errors)
