"""Small templates written inline, so each test shows the YAML it is about."""

from __future__ import annotations

import pytest

from quizzes.engine import parse_template

from .samples import NUMERIC


@pytest.fixture
def numeric_template():
    return parse_template(NUMERIC, source="bandwidth-time.yaml")
