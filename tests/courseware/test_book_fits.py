"""Every "fits" or "does not fit" in the book is computed by the physics module, never typed.

A capacity verdict typed into prose goes stale the moment a catalog figure is corrected (the book
once said Llama-3-70B in bf16 misses one H200 "by a hair"; on the device-reported capacity it fits).
So a sentence that judges whether something fits must get the verdict from a live expression
(``fits``, ``min_gpus`` and their kin), and those expressions must agree with a fit computed
here from the usable memory at the level the expression states (a serving engine's budget by
default; see docs/physics.md, "Usable memory").
"""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest

import content.physics as physics
from content.expressions import evaluate
from content.expressions.live import scan_live
from courseware.rendering import render_chapter_text, split_front_matter

BOOK = Path(__file__).resolve().parents[2] / "content" / "book"
CHAPTERS = sorted(BOOK.glob("*.md"))

# Functions that decide a capacity question: from the device-reported memory, or (occupancy)
# from an SM's registers and shared memory.
FIT_FUNCTIONS = frozenset(
    {
        "fits",
        "spare_memory_bytes",
        "usable_memory_bytes",
        "memory_fits",
        "min_gpus",
        "gpus_needed",
        "max_batch_for_memory",
        "pipeline_stages",
        "quantized_max_batch",
        "occupancy",
    }
)
# Words that state a verdict about capacity.
FIT_WORDS = re.compile(
    r"\b(fit|fits|fitting|fitted|too (?:big|large) for|enough to hold|room to spare)\b", re.I
)
# A capacity typed as a literal: "80 GB", "141GB", "74.5 GiB", "80 \text{ GB}"; not "3.35 TB/s".
TYPED_CAPACITY = re.compile(
    r"\d[\d,]*(?:\.\d+)?\s*(?:\\text\{\s*)?[kMGTP]i?B\b(?!\s*/|\s*\}?\s*/)", re.I
)
# Reading a device's memory capacity in a live expression.
DEVICE_MEMORY = re.compile(r"\.memory(?:_label)?_bytes\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(*])")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
# A paragraph, or one table row or list item: the unit a sentence never crosses.
_BLOCK = re.compile(
    r"""
    ^(?:\||[-*]\ |\d+\.\ )[^\n]*\n?              # a table row or list item ...
    (?:(?!\s*\n|\||[-*]\ |\d+\.\ )[^\n]*\n?)*    # ... with its continuation lines
    | (?:[^\n]+\n?)+                         # or a paragraph
    """,
    re.M | re.X,
)


def _sentences(body: str, first_line: int = 1):
    """Yield (line, prose with live spans masked, live expressions) for each sentence of a body.

    Live spans are masked before splitting, since their attribute dots are not full stops;
    blockquote markers are dropped so a worked example's sentence runs on across its lines.
    Table rows and list items count as sentences of their own.
    """
    spans = list(scan_live(body))
    masked, exprs, last = [], {}, 0
    for index, span in enumerate(spans):
        masked.append(body[last : span.start])
        masked.append(f"\u27e6{index}\u27e7" + "\n" * span.expr.count("\n"))
        exprs[index] = span.expr
        last = span.end
    masked.append(body[last:])
    text = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), "".join(masked))
    text = re.sub(r"^[ \t]*>[ \t]?", "", text, flags=re.M)
    for block in _BLOCK.finditer(text):
        offset = block.start()
        for sentence in _SENTENCE_END.split(block.group(0)):
            start = text.index(sentence, offset) if sentence else offset
            offset = start + len(sentence)
            used = [exprs[int(i)] for i in re.findall(r"\u27e6(\d+)\u27e7", sentence)]
            yield first_line + text.count("\n", 0, start), sentence, used


def _calls(expr: str, names=FIT_FUNCTIONS) -> list[ast.Call]:
    tree = ast.parse(expr, mode="eval")
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names
    ]


def _fit_sentences(body: str, first_line: int = 1):
    for line, sentence, used in _sentences(body, first_line):
        prose = re.sub(r"\u27e6\d+\u27e7", " ", sentence)
        if FIT_WORDS.search(prose):
            yield line, sentence, prose, used


def typed_fit_claims(body: str, first_line: int = 1) -> list[str]:
    """Sentences judging a fit against a typed capacity, with no fit computed live."""
    return [
        f"line {line}: {_quote(sentence)}"
        for line, sentence, prose, used in _fit_sentences(body, first_line)
        if TYPED_CAPACITY.search(prose) and not any(_calls(expr) for expr in used)
    ]


def hand_judged_fits(body: str, first_line: int = 1) -> list[str]:
    """Sentences that print a device's memory live but type the verdict beside it."""
    return [
        f"line {line}: {_quote(sentence)}"
        for line, sentence, _prose, used in _fit_sentences(body, first_line)
        if any(DEVICE_MEMORY.search(expr) for expr in used)
    ]


def _quote(sentence: str) -> str:
    return " ".join(sentence.split())[:160]


def _body(path: Path) -> tuple[str, int]:
    parsed = split_front_matter(path.read_text())
    return parsed.body, parsed.body_line


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_no_fit_statement_carries_a_typed_capacity(path):
    found = typed_fit_claims(*_body(path))
    assert found == [], f"{path.name} states a fit with a typed capacity: {found}"


# Chapters whose every fit verdict beside a device's memory is computed live: all of them.
STRICT = CHAPTERS


@pytest.mark.parametrize("path", STRICT, ids=lambda p: p.name)
def test_no_fit_verdict_is_typed_beside_a_live_device_memory(path):
    found = hand_judged_fits(*_body(path))
    assert found == [], f"{path.name} judges a fit by hand from device memory: {found}"


def _live_fit_calls():
    for path in CHAPTERS:
        body = split_front_matter(path.read_text()).body
        for span in scan_live(body):
            for call in _calls(span.expr, {"memory_fits", "fits", "min_gpus"}):
                yield path.name, span.line, span.expr, call


def _arg(expr: str, node: ast.AST):
    return evaluate(ast.get_source_segment(expr, node))


# Recomputed here, not by the module: the driver's total; the runtime's total less PyTorch's
# CUDA context (287,047,680 B, pytorch/pytorch#86509); vLLM's default 0.9 of the runtime's total
# less the activation peak (1.26 GiB) and non-torch memory (1.79 GiB) of its own log
# (vllm-project/vllm#10511).
CONTEXT_BYTES = 287_047_680
ENGINE_BYTES = (1.26 + 1.79) * 2**30


def _usable(part, level: str, utilization: float) -> float:
    runtime = part.memory_runtime_bytes or part.memory_bytes
    gpu = part.kind == "gpu"
    reserve = CONTEXT_BYTES if gpu else 0
    return {
        "driver": part.memory_bytes,
        "framework": runtime - reserve,
        "serving": min(utilization * runtime - (ENGINE_BYTES if gpu else 0), runtime - reserve),
    }[level]


def _expected(call: ast.Call, expr: str):
    """The verdict recomputed here from the usable memory at the call's level (serving unless
    the call names another), not by the module."""
    args = [_arg(expr, a) for a in call.args]
    kwargs = {k.arg: _arg(expr, k.value) for k in call.keywords}
    needed, part = args[0], physics.accelerator(args[1])
    devices = args[2] if len(args) > 2 else kwargs.get("devices", kwargs.get("gpus", 1))
    capacity = _usable(part, kwargs.get("level", "serving"), kwargs.get("utilization", 0.9))
    if call.func.id in ("memory_fits", "fits"):
        return needed <= capacity * devices
    return max(1, math.ceil(needed / capacity))


def test_the_book_computes_its_fit_verdicts_live():
    assert list(_live_fit_calls()), "the book states no fit through the physics module"


@pytest.mark.parametrize(
    "chapter,line,expr,call",
    list(_live_fit_calls()),
    ids=lambda v: v if isinstance(v, str) and v.endswith(".md") else "",
)
def test_live_fit_expressions_agree_with_the_reported_capacity(chapter, line, expr, call):
    got = evaluate(ast.get_source_segment(expr, call))
    assert got == _expected(call, expr), f"{chapter} line {line}: {expr}"


def test_the_detector_flags_typed_and_hand_judged_fits():
    typed = "The weights take 138 GB, so they do not fit on one 80 GB card.\n"
    quoted = "> The weights take 138 GB, so they\n> do not fit on one card.\n"
    by_hand = 'It has {{ accelerator("H200").memory_bytes | B }}, so the model misses fitting.\n'
    live = 'It {{ "fits" if memory_fits(1e9, "H100") else "does not fit" | text }} in 80 GB.\n'
    count = "The 138 GB of weights need {{ min_gpus(138e9, 'H100') | int }} GPUs to fit.\n"
    bandwidth = "A working set that fits in L2 streams at 5.5 TB/s.\n"
    assert typed_fit_claims(typed) and typed_fit_claims(quoted)
    assert hand_judged_fits(by_hand) and not typed_fit_claims(by_hand)
    for fine in (live, count, bandwidth):
        assert typed_fit_claims(fine) == hand_judged_fits(fine) == [], fine


def test_the_intro_shows_the_reported_capacity_not_the_converted_label():
    html = render_chapter_text((BOOK / "00-intro.md").read_text()).html
    part = physics.accelerator("H100")
    assert physics.format_quantity(part.memory_bytes, "GiB", fixed=True) in html  # 79.6 GiB
    converted = physics.format_quantity(part.memory_label_bytes, "GiB", fixed=True)  # 74.5 GiB
    for found in re.finditer(re.escape(converted), html):
        context = " ".join(html[found.start() - 200 : found.end() + 200].split())
        assert "no tool shows" in context, "the label read as decimal bytes is not what tools show"
