"""The analytics pages' filter, from the query string: one quiz, one group, a date range (whole
days in the offering's time zone, both ends included). A value it cannot use is left out and
named on the page, never a server error."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django import forms
from django.db.models.functions import Coalesce

from courseware.models import StudentGroup
from courseware.timezones import zone
from quizzes.models import Quiz
from quizzes.services.analytics import AnalyticsScope


class _ListedChoices(forms.models.ModelChoiceIterator):
    """The choices read in one query, with the queryset's results kept: Django's own iterator
    reads them through `iterator()`, which on PostgreSQL is a server-side cursor (DECLARE,
    FETCH and CLOSE: three round trips for a few rows) on every page of the dashboard."""

    def __iter__(self):
        if self.field.empty_label is not None:
            yield ("", self.field.empty_label)
        for obj in self.queryset:
            yield self.choice(obj)


class _ListedChoiceField(forms.ModelChoiceField):
    iterator = _ListedChoices


class AnalyticsFilterForm(forms.Form):
    quiz = _ListedChoiceField(
        label="Quiz",
        queryset=Quiz.objects.none(),
        required=False,
        to_field_name="slug",
        empty_label="all quizzes",
    )
    group = _ListedChoiceField(
        label="Group", queryset=StudentGroup.objects.none(), required=False, empty_label="everyone"
    )
    since = forms.DateField(
        label="From", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label="To", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def __init__(self, data, *, offering):
        super().__init__(data)
        self.offering = offering
        # Each quiz with its statistics counter: the kept pages compare them with the counters
        # their figures were computed at, so the choices and the counters are one query.
        self.fields["quiz"].queryset = (
            Quiz.objects.for_offering(offering)
            .order_by("position")
            .annotate(statistics_changes=Coalesce("activity__changes", 0))
        )
        self.fields["group"].queryset = StudentGroup.objects.filter(offering=offering)

    def quiz_counters(self) -> dict[str, int]:
        """{quiz id (a JSON key): changes so far} of the offering's graded quizzes, as
        `offering_statistics.counters` reads them, from the quiz choices (read once, here or
        when the choices are drawn)."""
        return {
            str(quiz.pk): quiz.statistics_changes
            for quiz in self.fields["quiz"].queryset
            if quiz.statistics_changes > 0
        }

    def clean(self):
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and until < since:
            self.add_error("until", "The range ends on or after the day it starts.")
        return data

    def scope(self) -> AnalyticsScope:
        """The valid parts of the filter (an invalid field counts as not given)."""
        self.is_valid()
        data = {k: v for k, v in self.cleaned_data.items() if k not in self.errors}
        tz = zone(self.offering.time_zone)

        def start_of(day):
            return datetime.combine(day, time.min, tzinfo=tz) if day else None

        until = data.get("until")
        return AnalyticsScope(
            quiz=data.get("quiz"),
            group=data.get("group"),
            since=start_of(data.get("since")),
            until=start_of(until + timedelta(days=1)) if until else None,
        )

    @property
    def active(self) -> bool:
        return any(self.data.get(name) for name in self.fields)

    def error_sentence(self) -> str:
        return " ".join(
            f"{self.fields[name].label}: {' '.join(errors)}" for name, errors in self.errors.items()
        )
