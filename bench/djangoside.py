"""The parts of the bench that run inside Django, one database per process.

Run as `python -m bench.djangoside COMMAND --out FILE [options]` with DATABASE_URL set, so each
database (SQLite, PostgreSQL) gets its own settings.  Commands: `prepare` (migrate, demo
accounts, the book and the bank, the bench's own quizzes), `seed` (grow the demo class),
`pages` (in-process page measurements), `ratios` (the question page against the floor, side
by side, `bench.ratios`), `cachecost` (each cache on the student's path turned off in turn,
side by side, `bench.cachecost`), `cachefill` (a worker's memory with every cache full,
`bench.cachefill`), `postcost` (an autosave and a Check against the floor, CPU per
request, `bench.postcost`), `accounts` (load-test students with a known password),
`exam` (a fresh exam quiz for one load run), `quiz` (a fresh quiz of `--mode` for one run),
`classload` (one run of a class scenario, `bench.classload`), `answers` (the correct answers
of attempts, for the simulated students), `verify` (the integrity checks after a load or fault
run).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import django

BENCH_PASSWORD = "bench-load-password-1"
QUIZ_ITEMS = 8


def setup() -> None:
    hosts = os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost")
    if "testserver" not in hosts:
        os.environ["DJANGO_ALLOWED_HOSTS"] = hosts + ",testserver"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()


def bench_templates(course):
    """Up to QUIZ_ITEMS published templates, formula and choice kinds first so all are covered."""
    from quizzes.models import QuestionTemplate
    from quizzes.services import questions

    rows = list(
        QuestionTemplate.objects.for_course(course)
        .published()
        .filter(current_version__isnull=False)
        .select_related("current_version")
        .order_by("slug")
    )
    kinds = {
        row.pk: {p.kind for p in questions.template_for(row.current_version).parts} for row in rows
    }
    formula = [r for r in rows if "formula" in kinds[r.pk]][:2]
    choice = [r for r in rows if "choice" in kinds[r.pk] and r not in formula][:1]
    numeric = [r for r in rows if kinds[r.pk] == {"numeric"}]
    picked = formula + choice + numeric[: QUIZ_ITEMS - len(formula) - len(choice)]
    return sorted(picked, key=lambda r: r.slug)


def bench_offering():
    """The offering the benchmarks run in: the site's default one (the demo's section 1)."""
    from courseware.models import Offering

    return Offering.objects.default()


def make_quiz(offering, slug: str, *, mode: str, tries: int = 3):
    """A bench quiz in `offering`, over up to QUIZ_ITEMS templates of its course's bank."""
    from quizzes.models import Quiz, QuizItem

    quiz, _ = Quiz.objects.update_or_create(
        offering=offering,
        slug=slug,
        defaults={
            "title": f"Bench {mode} quiz ({slug})",
            "mode": mode,
            "tries_per_variant": tries,
            "time_limit_minutes": 60 if mode == "exam" else None,
            "position": 900,
            "is_published": True,
        },
    )
    if not quiz.items.exists():
        QuizItem.objects.bulk_create(
            QuizItem(quiz=quiz, template=t, position=i + 1, points=1)
            for i, t in enumerate(bench_templates(offering.course))
        )
    quiz.offering = offering
    return quiz


def prepare(args) -> dict:
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    # The served site (DEBUG off) names static files from the manifest collectstatic writes.
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("setup_demo", stdout=open(os.devnull, "w"))
    for command in ("sync_content", "sync_questions"):
        try:
            call_command(command, stdout=open(os.devnull, "w"))
        except Exception as error:  # noqa: BLE001 - a bank problem is reported, not fatal
            print(f"bench: {command} failed: {error}", file=sys.stderr)
    quiz = make_quiz(bench_offering(), "bench-homework", mode="homework", tries=50)
    return {"homework_quiz": quiz.slug, "items": quiz.items.count()}


def seed(args) -> dict:
    import time

    from django.core.management import call_command

    workers = min(4, os.cpu_count() or 1)  # seed_demo's default
    started = time.perf_counter()
    call_command("seed_demo", students=args.students, workers=workers, stdout=open(os.devnull, "w"))
    return {
        "students": args.students,
        "seconds": time.perf_counter() - started,
        "workers": workers,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.djangoside")
    parser.add_argument("command")
    parser.add_argument("--out", required=True)
    parser.add_argument("--students", type=int, default=0)
    parser.add_argument("--size", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--slug", default="")
    parser.add_argument("--prefix", default="")
    parser.add_argument("--run", default="")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ports", default="")
    parser.add_argument("--server-pids", default="")
    parser.add_argument("--scenario", default="")
    parser.add_argument("--mode", default="exam")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--pages", default="", help="pages: only these instructor pages")
    args = parser.parse_args(argv)
    setup()
    import importlib

    commands = {
        "prepare": "bench.djangoside:prepare",
        "seed": "bench.djangoside:seed",
        "pages": "bench.pagetimes:run",
        "analyze": "bench.instructorpages:analyze",
        "instructor": "bench.instructorpages:pages_side_by_side",
        "ratios": "bench.ratios:run",
        "cachecost": "bench.cachecost:run",
        "cachefill": "bench.cachefill:run",
        "postcost": "bench.postcost:run",
        "accounts": "bench.loadprep:accounts",
        "exam": "bench.loadprep:exam",
        "quiz": "bench.loadprep:quiz",
        "classload": "bench.classload:command",
        "answers": "bench.loadprep:answers",
        "answerwatch": "bench.loadprep:watch_answers",
        "verify": "bench.loadprep:verify",
        "drive": "bench.drive:command",
        "hostile": "bench.hostile:command",
    }
    module, name = commands[args.command].split(":")
    result = getattr(importlib.import_module(module), name)(args)
    with open(args.out, "w") as out:
        json.dump(result, out, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())


def unit_of(part) -> str:
    """The unit a part's answer is written in ("" for none): a kind's own settings hold it
    (quizzes/engine/kinds/<kind>/), and only the kinds with a number have one."""
    return getattr(part.settings, "unit", None) or ""


# bench/postcost.py says the same in its own words: it also runs in an older checkout, whose
# djangoside has no unit_of.
