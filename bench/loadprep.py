"""Load-run preparation and the database checks afterwards (run inside Django).

`verify` is the point of the load and fault runs: every acknowledged submission is stored
exactly once and nothing else is, every Response belongs to a Variant of an existing Attempt,
and every submitted attempt's stored score equals the score recomputed from its rows.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connection

from bench.djangoside import BENCH_PASSWORD, bench_offering, make_quiz, unit_of


def accounts(args) -> dict:
    """`args.students` students `<prefix>NNNN` with the known password, enrolled in the bench's
    offering."""
    from courseware.models import Enrollment, Role

    offering = bench_offering()
    User = get_user_model()
    hashed = make_password(BENCH_PASSWORD)  # one Argon2id hash for every account
    names = [f"{args.prefix}{i:04d}" for i in range(1, args.students + 1)]
    names.append(f"{args.prefix}9999")  # kept aside: checks the site after the fault run
    User.objects.bulk_create(
        [User(username=name, password=hashed) for name in names], ignore_conflicts=True
    )
    users = User.objects.filter(username__in=names)
    Enrollment.objects.bulk_create(
        [Enrollment(user=u, offering=offering, role=Role.STUDENT) for u in users],
        ignore_conflicts=True,
    )
    return {"usernames": names, "password": BENCH_PASSWORD}


def exam(args) -> dict:
    quiz = make_quiz(bench_offering(), args.slug, mode="exam")
    return {"slug": quiz.slug, "items": quiz.items.count()}


def quiz(args) -> dict:
    """A fresh quiz of `args.mode` (exam or homework) for one load run."""
    made = make_quiz(bench_offering(), args.slug, mode=args.mode, tries=50)
    return {
        "slug": made.slug,
        "mode": made.mode,
        "items": made.items.count(),
        "url": made.get_absolute_url(),
    }


_PAGES: dict[str, str] = {}


def quiz_page(slug: str) -> str:
    """The address of the bench quiz `slug` (in its offering: /o/<offering>/quizzes/<slug>/),
    looked up once per process (a run's quiz slugs are its own)."""
    from quizzes.models import Quiz

    if slug not in _PAGES:
        quiz = Quiz.objects.select_related("offering").filter(slug=slug).order_by("-pk").first()
        _PAGES[slug] = quiz.get_absolute_url() if quiz else f"/no-such-quiz/{slug}/"
    return _PAGES[slug]


def part_answers(attempt_id: int) -> dict:
    """{(variant id, part id): (kind, correct answer, unit, option ids)} of one attempt."""
    from quizzes.models import Variant
    from quizzes.services import questions

    found = {}
    for variant in Variant.objects.filter(attempt_id=attempt_id).select_related("version"):
        template = questions.template_for(variant.version)
        answers = questions.correct_answers(variant)
        for part in template.parts:
            # a kind's own settings hold its unit or options (quizzes/engine/kinds/<kind>/)
            options = [o.id for o in getattr(part.settings, "options", ())]
            unit = unit_of(part) or None
            found[(variant.pk, part.id)] = (part.kind, answers.get(part.id), unit, options)
    return found


def answers(args) -> dict:
    return {f"{v}:{p}": list(a) for (v, p), a in part_answers(int(args.run)).items()}


def answers_file(folder: Path, attempt_id: int) -> Path:
    return folder / f"{attempt_id}.json"


def read_answers(path: Path) -> dict:
    """A file `watch_answers` wrote, back as `part_answers` gives it."""
    return {
        (int(v), p): tuple(a)
        for v, p, *a in (key.split(":", 1) + value for key, value in json.loads(path.read_text()))
    }


WATCH_EVERY_S = 0.2


def watch_answers(args) -> dict:
    """`djangoside answerwatch`: the correct answers of every attempt of the quiz `args.slug`,
    written as the attempts are started, one file per attempt in the folder `args.run`, until
    a file `stop` appears there.

    The load generator's students need their attempt's correct answers (for a realistic mix of
    right, wrong and unreadable answers) and must not look them up themselves: a thousand
    simulated students opening a database connection each exhausted PostgreSQL's connections.
    This one process, with one connection, answers for all of them; its CPU is counted apart
    (`bench.loadtest`)."""
    import time

    from quizzes.models import Attempt

    folder = Path(args.run)
    done: set[int] = set()
    written = 0
    started = time.monotonic()
    while not (folder / "stop").exists():
        new = list(
            Attempt.objects.filter(quiz__slug=args.slug)
            .exclude(pk__in=done)
            .values_list("pk", flat=True)
        )
        for attempt_id in new:
            found = part_answers(attempt_id)
            rows = [[f"{v}:{p}", list(a)] for (v, p), a in found.items()]
            target = answers_file(folder, attempt_id)
            partial = target.with_suffix(".tmp")
            partial.write_text(json.dumps(rows))
            partial.rename(target)  # whole or absent: a student never reads half a file
            done.add(attempt_id)
            written += 1
        if not new:
            time.sleep(WATCH_EVERY_S)
    return {"attempts": written, "seconds": time.monotonic() - started}


# -- verification ---------------------------------------------------------------------------


def _orphans() -> int:
    """Responses whose variant or attempt is missing (the schema forbids it; this checks it)."""
    from quizzes.models import Attempt, Response, Variant

    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COUNT(*) FROM {Response._meta.db_table} r "
            f"LEFT JOIN {Variant._meta.db_table} v ON v.id = r.variant_id "
            f"LEFT JOIN {Attempt._meta.db_table} a ON a.id = v.attempt_id "
            "WHERE v.id IS NULL OR a.id IS NULL"
        )
        return cursor.fetchone()[0]


def recomputed_score(attempt) -> tuple[Decimal, Decimal]:
    """The attempt's score from its stored rows, by the same rules as `submit_attempt`."""
    from quizzes.models import ScoreOverride
    from quizzes.services import scoring

    try:
        from quizzes.services.parts import states_of
    except ImportError:  # before the attempt service was split
        from quizzes.services.attempts import _states as states_of

    variants = list(
        attempt.variants.select_related("version", "item").prefetch_related("responses")
    )
    by_item: dict[int, list] = {}
    items = {}
    for variant in variants:
        variant.attempt = attempt
        states, points = states_of(variant, list(variant.responses.all()), submitted=True)
        variant.score = scoring.variant_score(states, points)
        by_item.setdefault(variant.item_id, []).append(variant)
        items[variant.item_id] = variant.item
    ordered = [items[pk] for pk in attempt.item_ids if pk in items]
    return scoring.attempt_total(
        ordered,
        by_item,
        is_late=attempt.is_late,
        late_penalty=attempt.quiz.late_penalty,
        overrides=ScoreOverride.objects.filter(attempt=attempt),
    )


GRADING_WAIT_S = 180


def _grading_drained(attempt_ids) -> tuple[float, int]:
    """Seconds until none of `attempt_ids` waits for its grade (at most GRADING_WAIT_S), and
    how many still wait then."""
    import time

    from quizzes.models import Attempt

    started = time.monotonic()
    waiting = Attempt.objects.filter(pk__in=attempt_ids, grading_queued_at__isnull=False)
    while waiting.exists() and time.monotonic() - started < GRADING_WAIT_S:
        time.sleep(0.5)
    return round(time.monotonic() - started, 1), waiting.count()


def verify(args) -> dict:
    """Check the database against the client's log in `args.run` (a JSON file)."""
    from quizzes.models import Attempt, Response, SavedAnswer

    with open(args.run) as f:
        log = json.load(f)
    problems: list[str] = []
    # An exam's submission only queues its grading: the task worker beside the servers grades
    # it. Wait (bounded) until every submission of the run is graded, and say how long it took.
    drained_s, waiting = _grading_drained(log["exam_attempts"])
    if waiting:
        problems.append(f"{waiting} exam submissions still waiting for their grade")
    # Homework: one row per acknowledged key, and no row for a key the client never sent.
    sent = set(log["homework_sent"])
    acked = log["homework_acked"]
    attempts = set(log["homework_attempts"])
    rows = list(
        Response.objects.filter(variant__attempt_id__in=attempts).values_list(
            "idempotency_key", "raw"
        )
    )
    keys = [key for key, _ in rows]
    by_key = dict(rows)
    for key, raw in acked.items():
        if keys.count(key) != 1:
            problems.append(f"acknowledged homework answer {key} stored {keys.count(key)} times")
        elif by_key[key] != raw:
            problems.append(f"homework answer {key} stored as {by_key[key]!r}, sent {raw!r}")
    strangers = [key for key in keys if key not in sent]
    if strangers:
        problems.append(f"{len(strangers)} homework rows with keys no client sent")
    # Exam: the last acknowledged save of each part, graded once at an acknowledged submit.
    exam_rows = {}
    # Exam grades carry no key (their own namespace); label them by variant and part.
    for variant_id, part_id, raw, attempt_id in Response.objects.filter(
        variant__attempt_id__in=log["exam_attempts"]
    ).values_list("variant_id", "part_id", "raw", "variant__attempt_id"):
        exam_rows.setdefault(f"exam-{variant_id}-{part_id}", []).append((raw, attempt_id))
    submitted = set(log["exam_submitted"])
    checked_parts = 0
    for attempt_id, saves in log["exam_saves"].items():
        attempt_id = int(attempt_id)
        if attempt_id not in submitted:
            continue
        for part, raw in saves.items():
            variant_id, part_id = part.split(":", 1)
            key = f"exam-{variant_id}-{part_id}"
            stored = exam_rows.get(key, [])
            checked_parts += 1
            if raw is None:  # a save whose reply was lost: stored at most once, either way
                if len(stored) > 1:
                    problems.append(f"exam answer {key} stored {len(stored)} times")
                continue
            if raw.strip() and len(stored) != 1:
                problems.append(f"exam answer {key} stored {len(stored)} times")
            elif raw.strip() and stored[0][0] != raw:
                problems.append(f"exam answer {key} stored as {stored[0][0]!r}, saved {raw!r}")
    for key, stored in exam_rows.items():
        _, variant_id, part_id = key.split("-", 2)
        attempt_id = stored[0][1]
        if f"{variant_id}:{part_id}" not in log["exam_saves"].get(str(attempt_id), {}):
            problems.append(f"exam row {key} for a part the client never saved")
    saved_rows = SavedAnswer.objects.filter(variant__attempt_id__in=log["exam_attempts"]).count()
    # Every attempt of the run: scores as recomputed, no half-written attempt.
    run_attempts = Attempt.objects.filter(pk__in=[*attempts, *log["exam_attempts"]]).select_related(
        "quiz"
    )
    inconsistent = 0
    for attempt in run_attempts:
        variants = attempt.variants.count()
        if variants != len(attempt.item_ids):
            problems.append(
                f"attempt {attempt.pk} has {variants} variants for {len(attempt.item_ids)} items"
            )
        if not attempt.is_submitted or attempt.is_grading:
            continue  # (one still being graded is counted above)
        score, max_score = recomputed_score(attempt)
        if abs(Decimal(attempt.score) - score) > Decimal("0.001") or attempt.max_score != max_score:
            inconsistent += 1
            problems.append(
                f"attempt {attempt.pk}: stored {attempt.score}/{attempt.max_score}, "
                f"recomputed {score}/{max_score}"
            )
    orphans = _orphans()
    if orphans:
        problems.append(f"{orphans} responses without a variant or attempt")
    return {
        "ok": not problems,
        "grading_drained_s": drained_s,
        "problems": problems[:50],
        "problem_count": len(problems),
        "homework_acked": len(acked),
        "homework_rows": len(keys),
        "homework_sent": len(sent),
        "exam_parts_checked": checked_parts,
        "exam_rows": sum(len(v) for v in exam_rows.values()),
        "exam_submitted": len(submitted),
        "saved_answers": saved_rows,
        "attempts_checked": run_attempts.count(),
        "inconsistent_scores": inconsistent,
        "orphan_responses": orphans,
    }
