"""``manage.py validate_questions``: check every question template over many seeds."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from content.expressions import did_you_mean
from quizzes.engine import Template, TemplateError
from quizzes.services.bank import content_hash, gate, read_folder_templates


def templates_to_validate(directory: Path | None = None):
    """Every template the command validates, as (templates, parse errors): the template files of
    the bank's folder (`settings.QUESTIONS_DIR`), read by the bank's one reader."""
    return read_folder_templates(directory)


class Command(BaseCommand):
    help = (
        "Validate question templates: parse each one, generate a variant per seed and check "
        "that every answer is finite, plausible and graded correct in two spellings, that "
        "common errors stay apart from the answer, and that variants and outcomes vary enough."
    )
    # Templates are pure content: validating them needs neither the database nor URL checks.
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument(
            "slugs",
            nargs="*",
            metavar="slug",
            help="validate only these templates (default: every template)",
        )
        parser.add_argument(
            "--seeds",
            type=int,
            default=None,
            help="number of seeds (variants) to generate per template (default: "
            "QUIZ_PUBLICATION_SEEDS, the publication gate's count, 200 unless set)",
        )
        parser.add_argument(
            "--record",
            action="store_true",
            help="write each passing text's fingerprint to the bank's gate-passes.txt, so "
            "sync_questions and imports need not validate that very text again",
        )

    def handle(self, *args, slugs, seeds, record=False, **options):
        if seeds is None:
            seeds = gate.publication_seeds()
        if seeds < 1:
            raise CommandError("--seeds must be at least 1")
        templates, errors = templates_to_validate()
        templates = self._select(templates, errors, slugs)
        failures = 0
        variants = 0
        for error in errors:
            failures += len(error.errors)
            self.stdout.write(self.style.ERROR(f"{error.source}: does not parse"))
            for issue in error.errors:
                self.stdout.write(f"    {error.source}, {issue}")
        passed: dict[str, tuple[str, int]] = {}
        for template in templates:
            report, refusing = gate.check_for_publication(template, seeds=seeds)
            if not refusing:
                passed[template.slug] = (content_hash(template.text), seeds)
            variants += report.variants
            failures += len(report.failures)
            style = self.style.SUCCESS if report.ok else self.style.ERROR
            self.stdout.write(style(report.summary()))
            for failure in report.failures:
                self.stdout.write(f"    {failure}")
        if record:
            every, _ = templates_to_validate()
            failed = {content_hash(t.text) for t in templates if t.slug not in passed}
            path = gate.record_passes(passed, keep={content_hash(t.text) for t in every} - failed)
            self.stdout.write(f"recorded {len(passed)} passes in {path}")
        count = len(templates) + len(errors)
        self.stdout.write(f"validated {count} templates ({variants} variants): {failures} failures")
        if failures:
            raise CommandError(f"{failures} failures in question templates")

    def _select(
        self, templates: list[Template], errors: list[TemplateError], slugs: list[str]
    ) -> list[Template]:
        if not slugs:
            return templates
        known = {t.slug: t for t in templates}
        missing = [slug for slug in slugs if slug not in known]
        if missing and not errors:
            slug = missing[0]
            raise CommandError(f"no template with slug '{slug}'{did_you_mean(slug, known)}")
        # A requested slug may live in a file that does not parse; keep those errors visible.
        return [known[slug] for slug in slugs if slug in known]
