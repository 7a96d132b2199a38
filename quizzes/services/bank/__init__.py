"""The question bank on disk and in the database: read every file, check all of it, then write.

Files under the bank's folder (the ``QUESTIONS_DIR`` setting, ``questions_dir()``) are question
templates (``docs/question-format.md``); files under any ``quizzes/`` folder there are quiz
definitions (``docs/quiz-format.md``). One reader (``read_one``, ``read_files``) parses every
(path, text) pair, from a folder, a zip or the studio's editor; one gate (``gate``) decides
whether a template may become a version. Loading is all-or-nothing: every file is parsed and
cross-checked first, and only a bank without a single problem is written, in one transaction.
Loading the same files again changes nothing (each row keeps the hash of the text it came from).
"""

from .common import BankError, content_hash
from .gate import check_for_publication, publication_seeds
from .quizfiles import ITEM_FIELDS, QUIZ_FIELDS, ItemSpec, Objective, QuizFile, read_quiz_text
from .reading import (
    SMOKE_SEEDS,
    Bank,
    TemplateFile,
    add_bank_file,
    compose_mapping,
    cross_check,
    folder_files,
    is_quiz_file,
    is_quiz_path,
    questions_dir,
    read_bank,
    read_files,
    read_folder_templates,
    read_one,
    read_template_text,
    template_kind,
)
from .sync import SyncReport, publish_version, set_quiz_items, sync_bank

__all__ = [
    "ITEM_FIELDS",
    "QUIZ_FIELDS",
    "SMOKE_SEEDS",
    "Bank",
    "BankError",
    "ItemSpec",
    "Objective",
    "QuizFile",
    "SyncReport",
    "TemplateFile",
    "add_bank_file",
    "check_for_publication",
    "compose_mapping",
    "content_hash",
    "folder_files",
    "is_quiz_file",
    "is_quiz_path",
    "read_files",
    "read_folder_templates",
    "read_one",
    "cross_check",
    "publication_seeds",
    "publish_version",
    "questions_dir",
    "read_bank",
    "read_quiz_text",
    "read_template_text",
    "set_quiz_items",
    "sync_bank",
    "template_kind",
]
