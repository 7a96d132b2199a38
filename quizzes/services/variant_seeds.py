"""The one derivation of a variant's seed (and of a pool's draw): an HMAC of the site's secret.

A seed is stable on reload, differs between students, items and attempts, and cannot be
guessed without the secret (DESIGN: "Variants and randomization"). Attempts, pool draws and the
demo data all derive it here, so a demo student's numbers are the numbers that student would
have been dealt.
"""

from __future__ import annotations

from django.conf import settings

from quizzes import engine


def _secret() -> bytes:
    return settings.SECRET_KEY.encode()


def variant_seed_for(
    *, student_id: int, item_id: int, attempt_number: int, index: int, salt: int = 0
) -> bytes:
    """The seed of a student's `index`-th variant of an item in one attempt.

    `salt` > 0 gives the other seeds tried when a draw repeats numbers the student has had.
    """
    extra = (salt,) if salt else ()
    return engine.variant_seed(_secret(), student_id, item_id, attempt_number, index, *extra)


def pool_seed_for(*, student_id: int, quiz_id: int, attempt_number: int, pool: str) -> bytes:
    """The seed of the draw of a pool's items for one attempt."""
    return engine.variant_seed(_secret(), "pool", student_id, quiz_id, attempt_number, pool)
