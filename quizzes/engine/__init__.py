"""The question-template engine, in pure Python (no Django).

Templates are YAML files (see docs/question-format.md); this package parses and checks them,
generates deterministic variants from a seed, renders their text, grades a part with
``quizzes.grading`` and validates a template over many seeds.  It depends on ``content``
(expressions, physics) and ``quizzes.grading``; the Django app depends on it, never the reverse.
"""

from quizzes.engine.codes import DIAGNOSIS_CODES
from quizzes.engine.errors import GenerationError, TemplateError, TemplateIssue
from quizzes.engine.grade import grade_part
from quizzes.engine.loading import (
    load_template_file,
    load_template_files,
    load_templates_collecting,
    template_paths,
)
from quizzes.engine.model import (
    CHAPTERS,
    CommonErrorSpec,
    Expr,
    Hint,
    Option,
    Outcomes,
    Parameter,
    Part,
    PlausibleCheck,
    Template,
    Text,
)
from quizzes.engine.parse import parse_template
from quizzes.engine.plausible import CHECKS as PLAUSIBLE_CHECKS
from quizzes.engine.render import (
    RenderedPart,
    earned_hints,
    prompt_pieces,
    render_figure,
    render_hints,
    render_part,
    render_parts,
    render_prompt,
    render_scoped_hints,
    render_solution,
)
from quizzes.engine.validate import (
    PartStats,
    ValidationFailure,
    ValidationReport,
    validate_template,
)
from quizzes.engine.variants import (
    Variant,
    catalog_digest,
    generate_variant,
    restamp,
    variant_seed,
)

__all__ = [
    "CHAPTERS",
    "DIAGNOSIS_CODES",
    "PLAUSIBLE_CHECKS",
    "CommonErrorSpec",
    "Expr",
    "GenerationError",
    "Hint",
    "Option",
    "Outcomes",
    "Parameter",
    "Part",
    "PartStats",
    "PlausibleCheck",
    "RenderedPart",
    "Template",
    "TemplateError",
    "TemplateIssue",
    "Text",
    "ValidationFailure",
    "ValidationReport",
    "Variant",
    "catalog_digest",
    "generate_variant",
    "restamp",
    "grade_part",
    "load_template_file",
    "load_template_files",
    "load_templates_collecting",
    "parse_template",
    "render_figure",
    "render_hints",
    "render_scoped_hints",
    "earned_hints",
    "render_part",
    "render_parts",
    "prompt_pieces",
    "render_prompt",
    "render_solution",
    "template_paths",
    "validate_template",
    "variant_seed",
]
