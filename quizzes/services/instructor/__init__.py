"""What instructors read and record about their class.

`overview` (dashboard, at-risk report), `book` (the gradebook), `history` (one student's
history) and `search` (variant search) only read; `writes` records score overrides and
extensions. Dependencies point one way: these modules use the models, `analytics` and
`regrade`, and only views, presenters and forms import them. `items` loads the item pages',
regrade pages' and forms' rows.
"""

from quizzes.services.instructor.book import (
    FILTERS,
    PER_PAGE,
    SORTS,
    Cell,
    Gradebook,
    gradebook,
    gradebook_students,
)
from quizzes.services.instructor.history import student_history
from quizzes.services.instructor.overview import (
    INACTIVE_DAYS,
    INVALID_SHARE,
    LOW_SCORE,
    MANY_INVALID,
    RiskReport,
    at_risk,
    best_scores,
    dashboard,
    students_of,
)
from quizzes.services.instructor.search import parse_parameter_filters, variant_search
from quizzes.services.instructor.totals import RULE as TOTAL_RULE
from quizzes.services.instructor.totals import course_totals
from quizzes.services.instructor.writes import grant_extension, item_points, override_score

__all__ = [
    "FILTERS",
    "INACTIVE_DAYS",
    "INVALID_SHARE",
    "LOW_SCORE",
    "MANY_INVALID",
    "PER_PAGE",
    "SORTS",
    "TOTAL_RULE",
    "Cell",
    "Gradebook",
    "RiskReport",
    "at_risk",
    "best_scores",
    "course_totals",
    "dashboard",
    "gradebook",
    "gradebook_students",
    "grant_extension",
    "item_points",
    "override_score",
    "parse_parameter_filters",
    "student_history",
    "students_of",
    "variant_search",
]
