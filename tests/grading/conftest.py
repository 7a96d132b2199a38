"""Formula grading runs in-process here unless a test asks for the pool (see test_pool.py)."""

import pytest


@pytest.fixture(autouse=True)
def grade_inline(request, monkeypatch):
    if "uses_pool" not in request.fixturenames:
        monkeypatch.setenv("GRADING_INLINE", "1")
