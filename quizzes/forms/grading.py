"""The grading page's request input: which answer to show, and a grade as typed values."""

from __future__ import annotations

from django import forms

from quizzes.models import MAX_COMMENT_LENGTH

MAX_RUBRIC_TICKS = 50


class QueueForm(forms.Form):
    answer = forms.IntegerField(required=False, min_value=1)
    anonymous = forms.BooleanField(required=False)


class GradeForm(forms.Form):
    comment = forms.CharField(
        required=False,
        strip=False,
        max_length=MAX_COMMENT_LENGTH,
        error_messages={"max_length": f"a comment is at most {MAX_COMMENT_LENGTH:,} characters."},
    )
    keep_comment = forms.BooleanField(required=False)
    version = forms.IntegerField(
        min_value=0,
        max_value=2**31 - 1,
        error_messages={"required": "the page's grade version is missing; reload the page."},
    )

    def clean(self):
        """The ticked rubric items and saved comments (lists the form's fields cannot hold)."""
        data = super().clean()
        get = self.data.getlist if hasattr(self.data, "getlist") else (lambda _: [])
        met, used = get("met"), get("use_comment")
        if len(met) > MAX_RUBRIC_TICKS or len(used) > MAX_RUBRIC_TICKS:
            raise forms.ValidationError("too many rubric items or comments.")
        data["met"] = [str(v)[:50] for v in met]
        try:
            data["use_comment"] = [int(v) for v in used]
        except ValueError:
            raise forms.ValidationError("a saved comment was not understood.") from None
        return data

    def error_sentence(self) -> str:
        return " ".join(
            f"{message[0].upper()}{message[1:]}"
            for errors in self.errors.values()
            for message in errors
        )
