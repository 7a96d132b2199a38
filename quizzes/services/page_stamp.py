"""The attempt page's version stamp: raised by every write that changes what the page shows.

`presenters.page_memo` serves a student's warm attempt page from memory, keyed on the attempt's
row (its `page_stamp` among its fields). Each write below raises the stamp in the same
transaction as the write itself, so a page read after the write's commit sees a new stamp
and a page drawn before it is never found again.

Writes that change the attempt's page: an answer (homework Check, graded or unreadable), an
exam save, new numbers, a submission (it saves the attempt row), a regrade, an override or a
recomputed score, an extension that moves the deadline (it saves the row), and, for every
attempt of a quiz, a change to its items or to the question versions its variants use
(`quizzes.signals`). The quiz's own settings, the student's dates and the release policy are
read on every request and are part of the memo's key, not of the stamp.
"""

from __future__ import annotations

from django.db.models import F

from quizzes.models import Attempt


# `update(**bump())` beside the fields a write already sets costs no query of its own.
def bump() -> dict:
    return {"page_stamp": F("page_stamp") + 1}


def bump_attempts(queryset_or_ids) -> int:
    """Raise the stamp of these attempts (ids or an Attempt queryset): one UPDATE."""
    rows = (
        queryset_or_ids
        if hasattr(queryset_or_ids, "update")
        else Attempt.objects.filter(pk__in=list(queryset_or_ids))
    )
    return rows.update(**bump())
