"""The quizzes app's data: question templates and their versions, quizzes, attempts, variants,
responses, and the instructor's records (overrides, extensions, regrades).

Dependencies point down: attempts refer to quizzes, quizzes to templates; nothing here imports
the views. Writes that touch several rows live in `quizzes.services`.
"""

from .accommodations import Accommodation, GroupExtension
from .attempts import (
    Attempt,
    AttemptStatus,
    Response,
    ResponseSource,
    ResponseStatus,
    SavedAnswer,
    Variant,
)
from .exports import ExportRun
from .manual import MAX_COMMENT_LENGTH, ManualGrade, ManualGradeEvent, SavedComment
from .quizzes import AnswerRelease, LatePolicy, Quiz, QuizItem, QuizMode, ReleasePolicy
from .records import Extension, RegradeRun, RegradeStatus, ScoreOverride
from .statistics import ItemStatistics, OfferingStatistics, QuizActivity
from .templates import (
    PublishRun,
    PublishStatus,
    QuestionTemplate,
    TemplateStatus,
    TemplateVersion,
    VersionOrigin,
)

__all__ = [
    "Accommodation",
    "AnswerRelease",
    "Attempt",
    "AttemptStatus",
    "ExportRun",
    "Extension",
    "GroupExtension",
    "ItemStatistics",
    "OfferingStatistics",
    "LatePolicy",
    "MAX_COMMENT_LENGTH",
    "ManualGrade",
    "ManualGradeEvent",
    "QuestionTemplate",
    "Quiz",
    "QuizActivity",
    "QuizItem",
    "QuizMode",
    "RegradeRun",
    "RegradeStatus",
    "ReleasePolicy",
    "Response",
    "ResponseSource",
    "ResponseStatus",
    "SavedAnswer",
    "SavedComment",
    "ScoreOverride",
    "PublishRun",
    "PublishStatus",
    "TemplateStatus",
    "TemplateVersion",
    "VersionOrigin",
    "Variant",
]
