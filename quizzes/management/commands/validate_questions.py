"""``manage.py validate_questions``: check every question template over many seeds."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

import content
from content.expressions import did_you_mean
from quizzes.engine import (
    Template,
    TemplateError,
    load_templates_collecting,
    validate_template,
)
from quizzes.services.bank.gate import publication_seeds

QUESTIONS_DIR = Path(content.__file__).resolve().parent / "questions"


def templates_to_validate(directory: Path = QUESTIONS_DIR):
    """Every template the command validates, as (templates, parse errors).

    The one place that decides where templates come from: today the files under
    ``content/questions/``; the app can add its database templates here.
    """
    return load_templates_collecting(directory)


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

    def handle(self, *args, slugs, seeds, **options):
        if seeds is None:
            seeds = publication_seeds()
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
        for template in templates:
            report = validate_template(template, seeds)
            variants += report.variants
            failures += len(report.failures)
            style = self.style.SUCCESS if report.ok else self.style.ERROR
            self.stdout.write(style(report.summary()))
            for failure in report.failures:
                self.stdout.write(f"    {failure}")
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
