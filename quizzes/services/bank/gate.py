"""The publication gate: the one check a template passes before it may become a version.

Every path that publishes asks it, over the same number of seeds (`QUIZ_PUBLICATION_SEEDS`,
200 by default): the studio's Publish, the studio's upload, `import_questions` and
`sync_questions` (for every template it would create or update); `validate_questions` runs the
same check over the repository's bank. It runs in the sandbox (`quizzes.engine.sandbox`: the
grading pool's memory limit and a clock) and draws every parameter's extremes before the seeds,
so a template that costs too much anywhere in its parameter space never reaches a student
("cost": a draw over `QUIZ_VARIANT_BUDGET_SECONDS`, or a run the sandbox stopped). The checks
that judge the spread of many variants (min_variants, outcome shares) would fail sound
templates over a few seeds, so a run over fewer than `SPREAD_MIN_SEEDS` seeds leaves them out.

Recorded passes. Validating the whole bank over 200 seeds takes about a minute of CPU, too
much for every fresh `make run`. So `validate_questions --record` writes the fingerprint of
each text that passed (`gate-passes.txt` in the bank's folder: its SHA-256, the seed count
and the catalog's fingerprint); a file whose text, seed policy and catalog all match a recorded
pass is not validated again by sync or import. Any edit changes the text's hash, and a
corrected catalog figure changes the catalog's, so a stale record costs time, never a check.
Only the bank's own folder is trusted for the record, never a folder or zip being imported.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from content.physics.catalog import snapshot as catalog_snapshot
from quizzes import engine
from quizzes.engine import sandbox
from quizzes.engine.validate import ValidationFailure
from quizzes.engine.validate.extremes import VARIANT_BUDGET_S

PUBLICATION_SEEDS = 200
# The gate's hard clock when its caller sets no budget (sync, import): every bank template
# passes in a few seconds.
PUBLICATION_BUDGET_SECONDS = 120.0
SPREAD_CHECKS = {"variants", "outcomes"}
SPREAD_MIN_SEEDS = 200
PASSES_FILE = "gate-passes.txt"


def publication_seeds() -> int:
    """The seeds every publication path validates over (`QUIZ_PUBLICATION_SEEDS`)."""
    return int(getattr(settings, "QUIZ_PUBLICATION_SEEDS", PUBLICATION_SEEDS))


def counts_at(failure, seeds: int) -> bool:
    """Whether a validation failure counts against publication at this many seeds."""
    return seeds >= SPREAD_MIN_SEEDS or failure.check not in SPREAD_CHECKS


def publication_budget() -> float:
    """The gate's clock when no budget is given (`QUIZ_PUBLICATION_BUDGET_SECONDS`)."""
    return float(getattr(settings, "QUIZ_PUBLICATION_BUDGET_SECONDS", PUBLICATION_BUDGET_SECONDS))


def variant_budget() -> float:
    """What one variant's draw may cost before the gate refuses the template
    (`QUIZ_VARIANT_BUDGET_SECONDS`): a student's start spends as much on it."""
    return float(getattr(settings, "QUIZ_VARIANT_BUDGET_SECONDS", VARIANT_BUDGET_S))


def check_for_publication(
    template: engine.Template,
    *,
    seeds: int | None = None,
    budget_s: float | None = None,
    progress=None,
) -> tuple[engine.ValidationReport, list]:
    """Validate `template`, its parameters' extremes first, in the sandbox (a process under the
    grading pool's memory limit, killed when its clock runs out); the report and the failures
    that refuse publication. A run the sandbox stopped is refused with a "cost" failure.
    ``progress`` (an `engine.validate.ProgressFile`, which works across processes) hears of
    each seed and may stop the run (`ValidationCancelled`)."""
    seeds = publication_seeds() if seeds is None else seeds
    seconds = (publication_budget() if budget_s is None else budget_s) + sandbox.GRACE_S
    try:
        report = sandbox.run_limited(
            engine.validate_template,
            seconds=seconds,
            template=template,
            seeds=seeds,
            budget_s=budget_s,
            extremes=True,
            variant_budget_s=variant_budget(),
            progress=progress,
        )
    except sandbox.Refused as refused:
        report = engine.ValidationReport(template.slug, template.source, seeds, stopped_after=0)
        message = (
            f"validation was stopped: {refused}. Some variant of this template costs too much "
            "to draw; bound its parameters or the work its expressions do"
        )
        report.failures = [ValidationFailure("cost", message)]
    return report, [f for f in report.failures if counts_at(f, seeds)]


def refusals(
    tf, *, seeds: int | None = None, budget_s: float | None = None, passes=frozenset()
) -> list[str]:
    """Why the bank file `tf` (a TemplateFile) may not be published: "path: validation: ...".

    Empty when it passes, or when ``passes`` (`recorded_passes()`) holds its fingerprint.
    """
    seeds = publication_seeds() if seeds is None else seeds
    if (tf.content_hash, seeds) in passes:
        return []
    try:
        _, refusing = check_for_publication(tf.template, seeds=seeds, budget_s=budget_s)
    except Exception as exc:  # noqa: BLE001 - a crash is one more problem of this file
        return [f"{tf.path}: validation could not run: {exc}"]
    return [f"{tf.path}: validation: {failure}" for failure in refusing]


def passes_path() -> Path:
    return Path(settings.QUESTIONS_DIR) / PASSES_FILE


def recorded_passes() -> frozenset[tuple[str, int]]:
    """The (text hash, seeds) pairs recorded as passing under today's catalog."""
    try:
        lines = passes_path().read_text(encoding="utf-8").splitlines()
    except OSError:
        return frozenset()
    catalog = catalog_snapshot.fingerprint()
    found = set()
    for line in lines:
        fields = line.split()
        if len(fields) >= 3 and not line.startswith("#") and fields[2] == catalog:
            try:
                found.add((fields[0], int(fields[1])))
            except ValueError:
                continue
    return frozenset(found)


def record_passes(passed: dict[str, tuple[str, int]], *, keep: set[str]) -> Path:
    """Write `passed` ({slug: (text hash, seeds)}) to the record, keeping earlier entries whose
    hash is in `keep` (texts still in the bank)."""
    catalog = catalog_snapshot.fingerprint()
    rows: dict[str, str] = {}
    try:
        for line in passes_path().read_text(encoding="utf-8").splitlines():
            fields = line.split()
            if len(fields) == 4 and not line.startswith("#") and fields[0] in keep:
                rows[fields[3]] = line
    except OSError:
        pass
    for slug, (digest, seeds) in passed.items():
        rows[slug] = f"{digest} {seeds} {catalog} {slug}"
    header = (
        "# Texts that passed the publication gate (manage.py validate_questions --record):\n"
        "# sha256 of the text, seeds, catalog fingerprint, slug. Sync and import skip these.\n"
    )
    path = passes_path()
    path.write_text(header + "".join(f"{rows[s]}\n" for s in sorted(rows)), encoding="utf-8")
    return path
