"""What every template shows a student reads as plain English: no "GPU(s)", no "1 bytes", no unit
printed twice, and a ratio question says what form of answer it expects (the grader reads a
plain number, not "3.2x").  Ledger rows R3.6-15 and R3.7 (docs/bank-review-ledger.md).

One seed per template, every text a variant can show: prompt, parts, options, the feedback of
every common error and of every wrong option, hints and solution.  Markdown tables are left
out: they are the physics explainer's, not the bank's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import content
from quizzes.engine import (
    generate_variant,
    load_template_file,
    render_hints,
    render_parts,
    render_prompt,
    render_solution,
    template_paths,
)
from quizzes.engine.namespace import names_for
from quizzes.engine.render import render_text

QUESTIONS = Path(content.__file__).resolve().parent / "questions"
PATHS = template_paths(QUESTIONS)
SEEDS = (1,)

COUNTED = "bytes|GPUs|tokens|sequences|conversations|blocks|elements|users|warps|steps|loads"
BAD = {
    "a plural in brackets": re.compile(r"\w\(s\)"),
    "a plural after 1": re.compile(rf"(?:(?<![\d.,$-] )(?<![\d.,])\b1|= 1\$) (?:{COUNTED})\b"),
    "a unit printed twice": re.compile(r"\b(GB|TB|MB|kB|GiB|MiB|TB/s|GB/s|FLOP/s) \1\b"),
    "FLOP/byte per byte": re.compile(r"FLOP/byte (?:per byte|of arithmetic)"),
}
RATIO = re.compile(r"how many times|by what factor", re.I)
FORM = re.compile(r"plain\s+(?:number|factor)|such\s+as\s+\d", re.I)


def shown_texts(template, variant):
    """Every text a student can see for this variant, as (where, text)."""
    yield "prompt", render_prompt(template, variant)
    names = names_for(variant.params, variant.answers)
    for rendered in render_parts(template, variant):
        yield f"part {rendered.id}", rendered.prompt
        for option_id, text in rendered.lists.get("options", ()):
            yield f"option {rendered.id}/{option_id}", text
        part = next(p for p in template.parts if p.id == rendered.id)
        correct = variant.answers.get(part.id) if part.kind == "choice" else ()
        with variant.replaying():
            for spec in getattr(part.settings, "common_errors", ()):
                if variant.common_errors.get(part.id, {}).get(spec.code) is not None:
                    yield f"error {spec.code}", render_text(template, spec.feedback, names)
            for option in getattr(part.settings, "options", ()):
                if getattr(option, "feedback", None) is not None and option.id not in correct:
                    yield f"feedback {option.id}", render_text(template, option.feedback, names)
    for hint in render_hints(template, variant, tries=100):
        yield "hint", hint
    yield "solution", render_solution(template, variant)


def prose(text):
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("|"))


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_what_a_student_reads_has_no_template_slips(path):
    template = load_template_file(path, root=QUESTIONS.parent)
    found = []
    for seed in SEEDS:
        variant = generate_variant(template, seed)
        for where, text in shown_texts(template, variant):
            for name, pattern in BAD.items():
                match = pattern.search(prose(text))
                if match:
                    found.append(f"seed {seed}, {where}: {name}: ...{match.group(0)}...")
        # A unitless ratio part says the answer is a plain number (the grader refuses "3.2x").
        for rendered in render_parts(template, variant):
            part = next(p for p in template.parts if p.id == rendered.id)
            if part.kind == "numeric" and not part.settings.unit and RATIO.search(rendered.prompt):
                if not FORM.search(rendered.prompt):
                    found.append(f"part {part.id}: a ratio with no word on the form expected")
    assert not found, "\n".join(sorted(set(found)))


def test_the_patterns_catch_the_slips_the_review_found():
    assert BAD["a plural in brackets"].search("advances 16 conversation(s) by one token")
    assert BAD["a plural after 1"].search("Each weight takes 1 bytes in int8")
    assert BAD["a plural after 1"].search(r"$\lceil 0.8 \rceil = 1$ GPUs")
    assert not BAD["a plural after 1"].search("1.5 GPUs, 21 GPUs, 0.1 bytes, $n - 1$ steps")
    assert BAD["a unit printed twice"].search('The datasheet\'s "24 GB GB"')
    assert BAD["FLOP/byte per byte"].search("3760 FLOP/byte per byte sent")
    assert not FORM.search("By what factor did memory bandwidth grow?")
