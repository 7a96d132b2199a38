"""The publication gate: the one check a template passes before it may become a version.

Every path that publishes from an author's text asks it, over the same number of seeds: the
studio's Publish, the studio's upload and `import_questions` (`QUIZ_PUBLICATION_SEEDS`, 200 by
default; `validate_questions` uses it too, for the repository's own bank, which `sync_questions`
then publishes after parsing it and drawing a few smoke variants). The checks that judge the
spread of many variants (min_variants, outcome shares) would fail sound templates over a few
seeds, so a run over fewer than `SPREAD_MIN_SEEDS` seeds leaves them out.
"""

from __future__ import annotations

from django.conf import settings

from quizzes import engine

PUBLICATION_SEEDS = 200
SPREAD_CHECKS = {"variants", "outcomes"}
SPREAD_MIN_SEEDS = 200


def publication_seeds() -> int:
    """The seeds every publication path validates over (`QUIZ_PUBLICATION_SEEDS`)."""
    return int(getattr(settings, "QUIZ_PUBLICATION_SEEDS", PUBLICATION_SEEDS))


def counts_at(failure, seeds: int) -> bool:
    """Whether a validation failure counts against publication at this many seeds."""
    return seeds >= SPREAD_MIN_SEEDS or failure.check not in SPREAD_CHECKS


def check_for_publication(
    template: engine.Template, *, seeds: int | None = None, budget_s: float | None = None
) -> tuple[engine.ValidationReport, list]:
    """Validate `template`; the report and the failures that refuse publication."""
    seeds = publication_seeds() if seeds is None else seeds
    report = engine.validate_template(template, seeds, budget_s=budget_s)
    return report, [f for f in report.failures if counts_at(f, seeds)]
