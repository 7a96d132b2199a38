"""Chapters 00-02, sixth pass: the fifth review's open imprecise and style findings and the fourth
prose review's open ones (``docs/reviews/book-00-02-fifth.md``, ``book-prose-fourth.md``).

Each test renders the chapter with its live figures and looks for the sentence with figures it
recomputed from published inputs, or for the structure the finding asked for; each fails on the
text before the fix.
"""

from __future__ import annotations

import math
import re

import pytest

from content import physics
from content.physics import format_number
from tests.courseware.book_text import chapter_texts, q

CHAPTERS = ("00-intro.md", "01-gpus.md", "02-roofline.md")
GPT_FAST = 104.9  # tokens/s, Llama-2-7B bf16 on an A100 80 GB (pytorch-labs/gpt-fast README)
LLAMA7_BYTES = physics.model("llama-2-7b").params * 2
KV7_PER_TOKEN = 2 * 32 * 32 * 128 * 2  # Llama-2-7B: K and V, 32 layers, 32 heads of 128, 2 B
KV70_PER_TOKEN = 2 * 80 * 8 * 128 * 2  # Llama-2-70B: 80 layers, 8 KV heads of 128
H100, A100 = physics.accelerator("H100"), physics.accelerator("A100")
FRACTION = GPT_FAST * LLAMA7_BYTES / A100.memory_bandwidth  # gpt-fast's share of the floor's rate


@pytest.fixture(scope="module")
def text():
    return chapter_texts(CHAPTERS)


def _body(chapter: str) -> str:
    """The chapter up to its notes (the text a reader reads as the argument)."""
    return chapter.split(" Sources ", 1)[0]


def _between(chapter: str, start: str, end: str) -> str:
    return chapter.split(start, 1)[1].split(end, 1)[0]


# ---- Chapter 00 ------------------------------------------------------------------------------


def test_a00_1_the_rule_is_named_by_the_fraction_it_is_computed_at(text):
    # Seventh pass (C00-1, C01-8): the 69% rule is no longer a forecasting method anywhere;
    # the introduction states the one recipe-and-check method that chapter 01 builds.
    intro = text["00-intro.md"]
    assert 0.68 < FRACTION < 0.70
    pct = f"{format_number(100 * FRACTION, 2)}%"
    assert "two thirds" not in intro and "two-thirds" not in intro
    assert "as gpt-fast does" not in intro and "rule of thumb" not in intro
    assert f"{pct} of the" not in intro
    assert "the forecast is the recipe slowed by that much" in intro
    assert f"The introduction's {pct} rule" not in text["01-gpus.md"]


def test_a00_2_the_mi300x_note_gives_the_whole_budget_rule(text):
    intro = text["00-intro.md"]
    reserve = (1.26 + 1.79) * 2**30  # vLLM's activation peak and non-torch memory, #10511
    mi300x = physics.accelerator("MI300X")
    assert physics.usable_memory_bytes("MI300X") == pytest.approx(
        0.9 * mi300x.memory_bytes - reserve, rel=1e-3
    )
    assert (
        "the budget is 0.9 of the driver's figure, less the "
        f"{q(reserve, 'B', sig=2)} of vLLM's log for an 8B model on an H100" in intro
    )


def test_a00_5_the_capacity_example_ends_on_two_gpus_and_p00_7_question_3_transfers(text):
    intro = text["00-intro.md"]
    example = _between(intro, "Worked example: why the 70B model", "A model that needs two GPUs")
    assert "8-bit" not in example and "four or eight" not in example
    assert "whole GPUs." in example and "too few to batch well" in example  # bk-a4
    # Question 3 is the int8 fit the example used to carry, asked as a judgement.
    checkpoint = physics.checkpoint_bytes("llama-2-70b", "int8")
    spare = physics.usable_memory_bytes("H100") - checkpoint
    assert 0 < spare < 5e9
    question = _between(intro, "Quantized to 8-bit integers", "What is the shortest possible time")
    assert f"Llama-2-70B takes {q(checkpoint, 'B')}" in question
    assert f"the checkpoint fits, with {q(spare, 'B')} to spare" in question
    assert f"about {int(spare / KV70_PER_TOKEN / 1e3)} thousand tokens" in question
    assert (
        f"together: {int(spare // (4096 * KV70_PER_TOKEN))} conversations of 4,096 tokens"
        in question
    )
    assert "An H200's driver reports" not in intro  # the old question 3 repeated the body


def test_a00_7_the_napkin_is_one_user_at_1024_tokens_without_a_batch_price(text):
    intro = text["00-intro.md"]
    napkin = _between(intro, "The napkin: the running example", "By the end of Part 1")
    assert "at a batch of" not in napkin
    assert "in a conversation of 1,024 tokens" in napkin
    budget = physics.usable_memory_bytes("H100")
    room = math.floor((budget - LLAMA7_BYTES) / (1024 * KV7_PER_TOKEN))
    assert f"room for {room} such conversations" in napkin
    # The roofline chapter's napkin, at the same context, holds the same number of sequences.
    assert f"the 1,024-token caches of {room} sequences" in text["02-roofline.md"]


def test_p00_3_units_come_after_the_cost_thread_with_a_pointer_where_gib_first_appears(text):
    intro = text["00-intro.md"]
    order = [
        intro.index(h)
        for h in (
            "From floor to forecast",
            "Memory capacity: the third number",
            "What a token costs",
        )
    ]
    units = intro.index("Units and prefixes")
    assert order == sorted(order) and units > order[-1]
    # Seventh pass (C00-7): the units primer is reference, after the questions.
    assert units > intro.index("Check your understanding")
    assert "because HBM is built in binary sizes ( units below)" in intro


def test_a00_4_the_intro_roofline_carries_no_unexplained_overlay():
    from courseware.book_rooflines import intro_chart

    chart = intro_chart()
    assert chart.ceilings == () and chart.slopes == ()
    assert [p.label for p in chart.points] == [
        "one token of Llama-2-7B",
        "4,096 × 4,096 matrix product",
    ]


# ---- Chapter 01 ------------------------------------------------------------------------------


def _recipe(bytes_: float, stream: float) -> float:
    """Chapter 01's recipe: bytes at STREAM dot, a graph node per kernel, one graph launch."""
    return bytes_ / stream + 388 * 0.58e-6 + 15e-6  # ocannl #488


def test_a01_5_the_closing_gives_one_forecast_and_one_reason(text):
    gpus = text["01-gpus.md"]
    closing = _between(gpus, "The napkin: one token through the chip", "Key takeaways")
    error = 1 / _recipe(LLAMA7_BYTES, 1.75e12) / GPT_FAST  # Azure ND A100 v4 STREAM dot
    cache = 2 * 32 * 4096 * 2 * 1024  # the conversation's 1,024 tokens of fp16 keys and values
    recipe = _recipe(LLAMA7_BYTES + cache, 3.18e12)  # Azure ND H100 v5 STREAM dot
    checked = recipe * error
    # The forecast is the introduction's: the recipe once, its checked value once, one cost.
    assert closing.count(q(checked, "s")) == 1
    assert closing.count(q(recipe, "s")) == 1
    assert "rule" not in closing and "slower again" not in closing
    assert f"{q(3.20 * checked / 3600 * 1e6, 'USD')} cost per million tokens" in closing  # K-11
    assert q(checked, "s") in text["00-intro.md"]


def test_a01_4_the_launch_table_says_its_gpu_figure_is_a_graph_nodes(text):
    gpus = text["01-gpus.md"]
    table = _between(gpus, "how kernels are issued", "The CPU issues asynchronously")
    assert table.count("≥ 580 ns") == 2
    # Eighth pass (E-12); fresh-eyes edit (bk-a2): the provenance column moved to [^launch].
    assert "GPU cost per kernel measured on" not in table and "580 ns per node" in table
    notes = gpus.split(" Sources ", 1)[1]
    assert "a kernel launched from a stream pays at least as much" in notes


def test_a01_6_provenance_of_l2_and_launch_costs_is_in_the_notes(text):
    gpus = text["01-gpus.md"]
    body = _body(gpus)
    assert "Measured on the same card, its bandwidth is about three times HBM's." in body
    assert "sister parts" not in body and "quoted most often" not in body
    prose = body.replace("measured launch costs (RTX 5070 Ti", "")  # the figure's source line
    # Third fresh-eyes edit (bk-a4): the launch costs' card is the note's and the figure's alone.
    assert prose.count("RTX 5070 Ti") == 0 and "5.5 TB/s" not in body
    assert "5.5 TB/s" in gpus.split(" Sources ", 1)[1]


def test_a01_7_p01_4_p01_5_reference_material_leaves_the_argument(text):
    gpus = text["01-gpus.md"]
    body = _body(gpus)
    # TF32 defaults and the Hopper/Blackwell datapath are notes; the text keeps two sentences.
    assert "since version 1.12" not in body and "warpgroup" not in body
    assert "since version 1.12" in gpus and "warpgroup" in gpus
    assert "Hopper feeds the tensor cores from shared memory." in body
    # Sparsity is one rule with one sentence per regime, and no separate worked example.
    # Eighth pass (E-15): the rule and its evidence are in the reference section, before occupancy.
    sparse = _between(body, "Dense and sparse peaks", "Occupancy:")
    assert sparse.lstrip(" #").startswith(
        'Use dense peaks: halve any figure marked "with sparsity".'
    )
    assert "Worked example" not in sparse and "dense models nothing" not in gpus
    # By the numbers keeps the parts the chapter uses.
    numbers = _between(gpus, "The GPUs of this chapter", "Sources")
    assert "T4" not in numbers and "L4" not in numbers
    for part in ("V100", "A100 80 GB", "H100 SXM", "H200", "B200"):
        assert part in numbers


def test_p01_11_question_2_is_diagnostic(text):
    gpus = text["01-gpus.md"]
    question = _between(gpus, "Three programs on an H100", "A datasheet lists an accelerator")
    eager = 388 * 20e-6  # HTA's upper eager launch cost per kernel
    stream = (LLAMA7_BYTES + 2 * 32 * 4096 * 2 * 1024) / 3.18e12  # weights + 1,024-token cache
    assert eager > stream
    assert f"take {q(eager, 's')} to issue, against {q(stream, 's')} of streaming" in question
    assert f"an efficiency of {format_number(100 * 2 / 32, 2)}%" in question
    for idea in ("Idea 4", "Idea 3", "Idea 2"):
        assert idea in question
    assert "If its HBM latency were the same as the H100's" not in gpus


# ---- Chapter 02 ------------------------------------------------------------------------------


def test_a02_9_the_running_example_keeps_its_1024_tokens(text):
    roofline = text["02-roofline.md"]
    # Ninth pass (bk-b): softmax and the prefill traffic table are reference sections now.
    body = _between(roofline, "Softmax #", "The KV cache of five attention designs")
    assert "4096" not in body and "4,096" not in body
    scores = 32 * 1024 * 1024 * 2
    assert f"that is {q(scores, 'B')}" in body
    for accesses in (5, 2, 3):
        assert q(accesses * scores / H100.memory_bandwidth, "s") in body
    # The L2 row of the prefill table is the block table's prefill attention (causal since the
    # sixth review's C02-1: 1,024 · 1,025 / 2 pairs, memory-bound by a hair).
    flops = 4 * 1024 * 1025 / 2 * 128 * 32
    minimum = 4 * 1024 * 128 * 2 * 32
    time = minimum / H100.memory_bandwidth
    row = f"{q(minimum, 'B')} {format_number(flops / minimum, 3)} memory, {q(time, 's')}"
    assert row in body
    block = _between(roofline, "One block on the roofline", "Three operating points in one block")
    assert q(time, "s") in block


def test_a02_2_the_fall_in_traffic_names_its_baseline(text):
    roofline = text["02-roofline.md"]
    n, d, h = 1024, 128, 32
    standard = (4 * n * d + 4 * n * n) * 2 * h
    tiled = (2 * n * d + n * d * (n // 128 + 1)) * 2 * h  # causal: E-17, seventh review
    minimum = 4 * n * d * 2 * h
    assert f"cuts the traffic {format_number(standard / tiled, 2)}×" in roofline
    assert f"the traffic is {format_number(standard / minimum, 3)}× below the step-by-step row" in (
        roofline
    )
    assert "once L2 catches the re-reads" not in roofline


def test_p02_3_p02_4_softmax_and_prefill_attention_are_tables_with_their_formulas(text):
    roofline = text["02-roofline.md"]
    assert "implementation HBM accesses per score time on an H100" in roofline
    assert "fused into FlashAttention none none" in roofline
    assert (
        "computed elements per head bytes FLOP/byte at the datasheet peaks: bound by, floor"
        in roofline
    )
    assert "tiled, from HBM 2 N d + N d ( N / B r + 1 )" in roofline


def test_a02_4_the_on_chip_total_is_chapter_01s(text):
    registers, sram, l2 = 256 * 2**10, 256 * 2**10, 50 * 2**20
    total = 132 * (registers + sram) + l2
    # pre-02 (bk-b2): the reason to tile is one SM's shared memory, not the chip's total (a
    # 1024-cubed product fits in L2 and is still tiled); the total stays chapter 01's.
    assert "against an on-chip total" not in text["02-roofline.md"]
    assert (
        "A tensor core multiplies only what its own SM holds, in registers and at most 228 KiB "
        "of shared memory on an H100, so even a product whose operands fit in L2 is cut into "
        "tiles." in text["02-roofline.md"]
    )
    assert f"L2 together, holds {q(total, 'B')}, and our token's" in text["01-gpus.md"]


def test_a02_5_bandwidth_shortens_a_step_it_does_not_raise_intensity(text):
    roofline = text["02-roofline.md"]
    assert "more bandwidth does." not in roofline
    assert "only fewer bytes per cached token do" in roofline
    assert "and more bandwidth shortens the step" in roofline


def test_a02_6_the_block_chart_and_its_table_round_one_point_alike(text):
    from courseware.book_rooflines import block_roofline_html

    html = str(block_roofline_html())
    # One rounding for chart and table, and the eighth pass's rule (E-19): an exact integer,
    # b = N = 1024, prints in full in both.
    assert "1,024 FLOP/byte" in html and "64 FLOP/byte" in html
    roofline = text["02-roofline.md"]
    table = _between(roofline, "One block on the roofline", "Three operating points in one")
    assert "prefill 1024 projections, MLP" in table
    assert "1020 FLOP/byte" not in table and table.count("1,024 FLOP/byte") >= 2


def test_a02_7_the_napkin_budgets_with_the_checked_forecast(text):
    roofline = text["02-roofline.md"]
    napkin = _between(roofline, "The napkin: a token at three batch sizes", "Key takeaways")
    error = 1 / _recipe(LLAMA7_BYTES, 1.75e12) / GPT_FAST
    kv = 1024 * KV7_PER_TOKEN
    flops = 2 * physics.model("llama-2-7b").params + 2 * 32 * 32 * 256 * 1024
    recipe = max(flops / 794.5e12, (LLAMA7_BYTES + kv) / 3.18e12) + 388 * 0.58e-6 + 15e-6
    assert f"1 {q(LLAMA7_BYTES + kv, 'B')} {q(recipe * error, 's')}" in napkin
    # C02-5 (sixth review): one forecast method for the part's token, not a third correction of
    # the introduction's (its 69% rule is retired: /work/bin/RUNNING-EXAMPLE.md).
    rule = (LLAMA7_BYTES + kv) / H100.memory_bandwidth / FRACTION
    assert recipe * error < rule
    assert "rougher rule" not in napkin and q(rule, "s") not in napkin
    # pre-02 (bk-b2): the forecast is defined in one clause, without the opaque "as in the
    # earlier chapters".
    assert "forecast, as in the earlier chapters" not in napkin
    assert "This section adds one term, the forecast" in napkin


def test_a02_8_p02_10_the_bound_is_a_note_and_the_fractions_live_in_the_forecast_table(text):
    roofline = text["02-roofline.md"]
    body = _body(roofline)
    intensity = _between(body, "Arithmetic intensity", "Counting FLOPs")
    assert "√" not in intensity and "sqrt" not in intensity
    # Ninth pass (bk-b2, pre-02): "what moves an operating point" is a three-row table, with no
    # figure from the measured ceilings (the chart's intensities, 1 to 64 to 1,024, are its inputs).
    # pre-02b (bk-b3): the section closes the napkin, before the chapter's last paragraph.
    moving = _between(body, "What moves an operating point", "So the chapter's argument ends")
    assert not re.search(r"\d", moving.replace("1 to 64 to 1,024", "").replace("fp8", ""))
    assert "up, toward the roof" in moving
