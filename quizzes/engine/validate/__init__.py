"""Validating a template over many seeds (``validate_template``), in three modules whose
imports point one way: ``run`` draws the variants and checks each one whole, ``checks`` holds
the per-part checks each answer kind asks for, ``report`` the report and its failures.
"""

from quizzes.engine.validate.checks import Checks
from quizzes.engine.validate.progress import ProgressFile, ValidationCancelled
from quizzes.engine.validate.report import (
    HISTOGRAM_BINS,
    PartStats,
    ValidationFailure,
    ValidationReport,
    histogram,
)
from quizzes.engine.validate.run import validate_template

__all__ = [
    "HISTOGRAM_BINS",
    "Checks",
    "PartStats",
    "ProgressFile",
    "ValidationCancelled",
    "ValidationFailure",
    "ValidationReport",
    "histogram",
    "validate_template",
]
