"""Authoring question templates: drafts, previews, validation, versions, quiz items and files.

The studio's pages (``quizzes.views.studio*``) and the ``export_questions``/``import_questions``
commands call these functions; they in turn use the bank loader (``quizzes.services.bank``) and
the pure engine, never the views.
"""

from quizzes.services.authoring.drafts import (
    MAX_SOURCE_CHARS,
    STARTERS,
    AuthoringError,
    DraftConflict,
    check_draft,
    check_slug,
    create_template,
    duplicate_template,
    read_draft,
    save_draft,
    starter_source,
    with_fields,
)
from quizzes.services.authoring.files import (
    MAX_UPLOAD_BYTES,
    ImportReport,
    export_files,
    export_to_dir,
    export_zip,
    import_dir,
    import_upload,
    quiz_text,
    read_import,
)
from quizzes.services.authoring.preview import (
    MAX_SEED,
    Preview,
    PreviewPart,
    TryResult,
    build_preview,
    random_seed,
)
from quizzes.services.authoring.publication import (
    cancel_publication,
    fail_publication,
    queue_publication,
    run_publication,
)
from quizzes.services.authoring.publishing import (
    DEFAULT_SEEDS,
    MAX_POINTS,
    MAX_SEEDS,
    add_quiz_item,
    mark_validation_pending,
    publish_draft,
    remove_quiz_item,
    retire_template,
    validate_draft,
    validation_summary,
    version_usage,
)

__all__ = [
    "DEFAULT_SEEDS",
    "MAX_POINTS",
    "MAX_SEED",
    "MAX_SEEDS",
    "MAX_SOURCE_CHARS",
    "MAX_UPLOAD_BYTES",
    "STARTERS",
    "AuthoringError",
    "DraftConflict",
    "ImportReport",
    "Preview",
    "PreviewPart",
    "TryResult",
    "add_quiz_item",
    "build_preview",
    "cancel_publication",
    "check_draft",
    "check_slug",
    "create_template",
    "duplicate_template",
    "export_files",
    "export_to_dir",
    "export_zip",
    "fail_publication",
    "import_dir",
    "import_upload",
    "publish_draft",
    "queue_publication",
    "quiz_text",
    "random_seed",
    "read_draft",
    "read_import",
    "remove_quiz_item",
    "retire_template",
    "run_publication",
    "save_draft",
    "starter_source",
    "mark_validation_pending",
    "validate_draft",
    "validation_summary",
    "version_usage",
    "with_fields",
]
