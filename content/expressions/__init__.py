"""The safe expression language shared by chapters and question templates.

Dependencies point one way: this package imports nothing of the subject it computes (no
``content.physics``), nothing from Django or the apps. The subject is handed to it through
``configure_subject`` (``content/__init__.py`` does it for this book).
"""

from content.expressions.errors import ExpressionError, did_you_mean
from content.expressions.evaluator import evaluate, evaluate_tracked
from content.expressions.formatting import LiveFormat, format_value, parse_options
from content.expressions.live import (
    LivePieces,
    LiveSpan,
    RenderResult,
    check_live,
    collect_citations,
    render_live,
    render_live_pieces,
    scan_live,
)
from content.expressions.namespace import MATH_HELPERS, configure_subject, default_namespace
from content.expressions.policy import check_expression, free_names, is_catalog_object

__all__ = [
    "MATH_HELPERS",
    "ExpressionError",
    "LiveFormat",
    "LivePieces",
    "LiveSpan",
    "RenderResult",
    "check_expression",
    "check_live",
    "collect_citations",
    "configure_subject",
    "default_namespace",
    "did_you_mean",
    "evaluate",
    "evaluate_tracked",
    "format_value",
    "free_names",
    "is_catalog_object",
    "parse_options",
    "render_live",
    "render_live_pieces",
    "scan_live",
]
