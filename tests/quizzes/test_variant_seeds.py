"""One seed derivation: attempts, retries with fresh numbers, pool draws and the demo data all
derive a variant's seed from the same HMAC, and it is the seed stored variants already have."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.utils import timezone

from quizzes import engine
from quizzes.services.attempts import start_attempt
from quizzes.services.variant_seeds import pool_seed_for, variant_seed_for
from tests.factories import make_quiz

pytestmark = pytest.mark.django_db


def test_the_seed_is_the_hmac_stored_variants_were_made_with():
    secret = settings.SECRET_KEY.encode()
    assert variant_seed_for(student_id=3, item_id=5, attempt_number=1, index=0) == (
        engine.variant_seed(secret, 3, 5, 1, 0)
    )
    assert variant_seed_for(student_id=3, item_id=5, attempt_number=1, index=0, salt=2) == (
        engine.variant_seed(secret, 3, 5, 1, 0, 2)
    )
    assert pool_seed_for(student_id=3, quiz_id=7, attempt_number=1, pool="a") == (
        engine.variant_seed(secret, "pool", 3, 7, 1, "a")
    )


def test_an_attempts_variant_carries_the_derived_seed(course, student):
    quiz = make_quiz(course)
    variant = start_attempt(quiz=quiz, student=student, now=timezone.now()).variants.get()
    expected = variant_seed_for(
        student_id=student.pk, item_id=variant.item_id, attempt_number=1, index=0
    )
    assert variant.seed == expected.hex()
