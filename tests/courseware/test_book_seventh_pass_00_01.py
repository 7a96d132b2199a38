"""Chapters 00-01, seventh pass (book-k): one forecast method for the running example.

The sixth review (docs/reviews/book-00-02-sixth.md, C00-1, C00-6, C01-8) found one token
forecast three ways across chapters 00-02 (6.03, 5.38 and 5.58 ms).  The introduction now states
one method (the recipe, checked once against gpt-fast's measured A100 token), chapter 01 builds
the same number from its parts, and both quote it at the 1,024-token context.  Every figure is
recomputed here from the published inputs, not by the physics functions the chapters call.
"""

from __future__ import annotations

import pytest

import content.physics as physics
from content.physics import format_number
from tests.courseware.book_text import chapter_texts, q

H100_BW, A100_BW = 3.35e12, 2.039e12  # datasheets
STREAM = {"H100": 3.18e12, "A100": 1.75e12, "H200": 4.48e12}  # Azure's guide, STREAM dot
PARAMS = physics.model("llama-2-7b").params
WEIGHTS = 2 * PARAMS  # fp16
CACHE_1024 = 2 * 32 * 32 * 128 * 2 * 1024  # K and V, 32 layers, 32 heads of 128, fp16
KERNELS, NODE, GRAPH = 32 * 12 + 4, 0.58e-6, 15e-6  # chapter 01's count; ocannl #488
GPT_FAST = 104.9  # tokens/s, gpt-fast README, A100 80 GB at 330 W
PRICE = 3.20  # Hyperstack, H100 per hour


def _recipe(nbytes: float, part: str) -> float:
    return nbytes / STREAM[part] + KERNELS * NODE + GRAPH


ERROR = 1 / _recipe(WEIGHTS, "A100") / GPT_FAST - 1
FORECAST = _recipe(WEIGHTS + CACHE_1024, "H100") * (1 + ERROR)
FLOOR = (WEIGHTS + CACHE_1024) / H100_BW


@pytest.fixture(scope="module")
def text():
    return chapter_texts(("00-intro.md", "01-gpus.md"))


def test_the_inputs_are_the_catalogs():
    assert physics.accelerator("H100").memory_bandwidth == H100_BW
    assert physics.achievable_bandwidth("H100") == STREAM["H100"]
    assert physics.achievable_bandwidth("A100") == STREAM["A100"]
    assert physics.decode_kernels("llama-2-7b") == KERNELS
    assert physics.decode_recipe_error() == pytest.approx(ERROR)
    assert physics.decode_forecast_time("llama-2-7b", "H100", "fp16", 1, 1024) == pytest.approx(
        FORECAST
    )
    assert 0.19 < ERROR < 0.21 and 5.5e-3 < FORECAST < 5.65e-3


def test_c00_6_one_number_per_quantity_in_the_introduction(text):
    intro = text["00-intro.md"]
    # The floor, the forecast and both costs appear at the 1,024-token context only.
    for old in ("6.03 ms", "5.38 ms", "4.02 ms", "$3.58", "$5.36", "$5.16", "≈ 3.6 dollars"):
        assert old not in intro, old
    assert f"= {q(FLOOR, 's')}" in intro
    assert f"the forecast , {q(FORECAST, 's')} per token for the running" in intro  # bk-a4
    assert f"time per token {q(FLOOR, 's')} {q(FORECAST, 's')}" in intro
    cost = PRICE / 3600 * FORECAST * 1e6
    assert f"× 10 6 = $ {q(cost, 'USD').lstrip('$')}" in intro  # the cost example's equation
    # Third fresh-eyes edit (bk-a4): one cost in the napkin's row, the forecast's.
    assert f"dollars per million tokens — {q(cost, 'USD')}" in intro


def test_c00_1_the_method_is_stated_with_its_check_and_its_error(text):
    intro = text["00-intro.md"]
    # Ninth pass: the method in the note on gpt-fast, its formula in chapter 01's napkin.
    assert f"it predicts {q(1 / _recipe(WEIGHTS, 'A100'), 'tokens/s')} where" in intro
    assert f"so it is {format_number(100 * ERROR, 2)}% optimistic" in intro
    assert "the forecast is the recipe slowed by that much" in intro
    assert "rule of thumb" not in intro and "as gpt-fast does" not in intro


def test_c01_8_the_gpus_napkin_reaches_the_introductions_number(text):
    gpus = text["01-gpus.md"]
    napkin = gpus.split("The napkin: one token through the chip", 1)[1].split("Key takeaways")[0]
    # Fresh-eyes edit (bk-a2): one form for the forecast, ms per token; the rate only in cost.
    # rv-3's K-11: two columns, the value first, the "how" (which wraps) beside it
    assert (
        f"{q(FORECAST, 's')} forecast : recipe × (1 + its error on gpt-fast's A100, 20%), slightly "
        "pessimistic for an uncapped card" in napkin
    )
    assert q(1 / FORECAST, "tokens/s") not in napkin
    assert "rule" not in napkin and "short context whose cache is left out" not in gpus


def test_c00_question_4_and_6_use_the_same_method_on_the_h200(text):
    intro = text["00-intro.md"]
    h200 = _recipe(WEIGHTS + CACHE_1024, "H200") * (1 + ERROR)
    assert physics.achievable_bandwidth("H200") == STREAM["H200"]
    assert f"{q(h200, 's')}, against {q(FORECAST, 's')} on the H100" in intro
    assert "assuming the H200 loses what the A100 did" not in intro


def test_c01_3_tensor_cores_are_16_times_the_lanes_at_one_clock(text):
    gpus = text["01-gpus.md"]
    assert physics.accelerator("H100").tensor_flops_per_clock_per_sm["bf16"] == 16 * 256
    # Fresh-eyes edit (bk-a2): the main text gives the peaks' ratio (about 15×) beside the
    # table's times; the exact 16× at one clock is in [^clocks].
    main, notes = gpus.split("Key takeaways", 1)[0], gpus.split(" Sources ", 1)[1]
    assert "finish the product about 15× sooner than the fp32 lanes" in main
    assert "16×" not in main and "16×" in notes
    assert "Idea 1's note gives the exact ratio per clock" in gpus  # rv-3's K-12


def test_c01_4_and_c01_2_caveats_that_change_numbers_sit_beside_them(text):
    gpus = text["01-gpus.md"]
    # Seventh review (E-8): an H100 SXM pointer chase is published; the text cites it.
    # Ninth pass: the ladder's lead names the GH200 once; the H100 SXM chase is in its note.
    # Fresh-eyes edit (bk-a2): the ladder's and the launch table's provenance are in the notes.
    notes = gpus.split(" Sources ", 1)[1]
    assert "RRZE's pointer-chase measurements on a GH200" in notes
    assert "A pointer chase on an H100 SXM" in notes
    assert "RTX 5070 Ti Laptop GPU under CUDA 13.3 and WSL2" in notes


def test_c01_7_the_compiled_and_eager_figures_come_from_one_post(text):
    gpus = text["01-gpus.md"]
    compiled = physics.measurement("decode/gpt-fast-blog-llama-2-7b-compiled")
    assert compiled.value == 107.0
    assert [s.key for s in compiled.citations()] == ["pytorch-gpt-fast-blog"]
    # Seventh review (E-7): the share is gone; both figures still come from the one post.
    # Fresh-eyes edit (bk-a2): the same two figures, as ms per token.
    assert f"timed its Llama-2-7B at {q(1 / 25.5, 's')} per token eager" in gpus
    # Second fresh-eyes edit (bk-a3): the text gives the README's compiled run (one figure with
    # the check); the blog's is in [^eager], beside its eager run. No ratio of the two is taken.
    assert f"the blog post's own compiled run took {q(1 / 107.0, 's')}" in gpus


def test_c01_9_the_overhead_regime_has_a_picture(text):
    from courseware.book_timeline import timeline

    figure = timeline()
    eager, graph = figure["rows"]
    # Eager at 20 µs per launch: 12 launches = 240 µs of CPU for ~140 µs of GPU work.
    assert eager["end"] >= 12 * 20e-6
    assert graph["end"] < eager["end"] and eager["idle"] > 0.3 > graph["idle"]
    assert "One decoder block's launches and kernels" in figure["title"]
