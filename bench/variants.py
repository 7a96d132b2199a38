"""Variant generation per template, and `validate_questions` over the whole bank.

Generation is timed the way a student's attempt needs it (draw, compute every answer, store as
JSON) and separately with the prompt rendered; validation is timed in process per template and
as the management command a user runs (`manage.py validate_questions`, its default seeds).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bench.stats import summarize
from quizzes import engine
from quizzes.grading import shutdown_pool

ROOT = Path(__file__).resolve().parent.parent


def _templates():
    """The bank's templates as the app reads them: the folder of the `QUESTIONS_DIR` setting,
    each file through the bank's one reader (what `validate_questions` validates)."""
    from bench.djangoside import setup

    setup()
    from quizzes.services.bank import read_folder_templates

    return read_folder_templates()


def _generation(template, seeds: range) -> dict:
    draw, rendered = [], []
    for seed in seeds:
        started = time.perf_counter()
        variant = engine.generate_variant(template, seed)
        variant.to_json()
        middle = time.perf_counter()
        engine.render_prompt(template, variant)
        draw.append(middle - started)
        rendered.append(time.perf_counter() - started)
    return {"generate": summarize(draw), "generate_and_render": summarize(rendered)}


def _command(seeds: int | None) -> dict:
    args = [sys.executable, "manage.py", "validate_questions"]
    if seeds is not None:
        args += ["--seeds", str(seeds)]
    started = time.perf_counter()
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=os.environ.copy())
    elapsed = time.perf_counter() - started
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return {"seconds": elapsed, "exit_code": done.returncode, "summary": last, "seeds": seeds}


def run(*, quick: bool = False) -> dict:
    templates, errors = _templates()
    seeds = range(50 if quick else 300)
    validate_seeds = 20 if quick else 200
    per_template = {}
    for template in sorted(templates, key=lambda t: t.slug):
        engine.generate_variant(template, 10_000)  # first call builds caches, untimed
        entry = _generation(template, seeds)
        started = time.perf_counter()
        report = engine.validate_template(template, validate_seeds)
        entry["validate"] = {
            "seeds": validate_seeds,
            "seconds": time.perf_counter() - started,
            "ok": report.ok,
            "failures": len(report.failures),
        }
        entry["parts"] = [part.kind for part in template.parts]
        per_template[template.slug] = entry
    shutdown_pool()
    return {
        "templates": len(templates),
        "unparsable_files": len(errors),
        "seeds_per_template": len(seeds),
        "per_template": per_template,
        "validate_questions_command": _command(validate_seeds if quick else None),
    }
