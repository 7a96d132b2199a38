"""Chapters 04-05, seventh pass (book-m): the sixth review's open findings D04-4..8 and D05-2..9
(`docs/reviews/book-03-05-sixth.md`) fixed in the rendered text.

Every figure is recomputed here from raw inputs (DeepSeek's published service statistics,
DeepEP's and sglang's published timings, the link rate), not by the function the chapter calls;
each test fails on the text the review read.
"""

from __future__ import annotations

import pytest

from tests.courseware.book_text import chapter_texts, q

NVLINK = 450e9  # NVLink 4, bytes per second per direction
ALPHA = 2.848e-6  # NCCL's step latency from its 32 KiB all-reduce (chapter 05)
GIB16 = 16 * 2**30


@pytest.fixture(scope="module")
def text():
    return chapter_texts(("04-precision.md", "05-interconnect.md"))


def test_d05_2_the_all_to_all_is_priced_at_the_services_shape_as_a_range(text):
    t = text["05-interconnect.md"]
    per_gpu = 14.8e3 / ((20 + 22) / 2) / 8  # conversations per GPU: one token each per pass
    bench = 192e-6 + 369e-6  # DeepEP, dispatch + combine, 128 tokens per GPU, EP128
    low = 58 * bench * per_gpu / 128  # bandwidth-bound: two halves cost one whole
    high = 2 * 58 * bench  # latency-bound: each micro-batch pays the full time
    floor = 15.9e-3  # the section's memory floor (the review's recomputation)
    # pre-45 (bk-d2): conversations per GPU, one token each a pass
    assert (
        f"its {per_gpu:.0f} conversations per GPU (one token each a pass), {per_gpu / 2:.0f} "
        "per micro-batch, do" in t
    )
    assert f"{q(bench, 's')} at 128-way expert parallelism and {q(194e-6 + 360e-6, 's')}" in t
    assert "all-to-all, bandwidth-bound " + q(low, "s", sig=2) in t
    assert "all-to-all, latency-bound " + q(high, "s", sig=2) in t
    measured = 2 / (20 + 22)
    assert low > floor and high > measured  # what the conclusion now says
    # pre-45b (bk-d3): the box states the conclusion with the range, the floor and the pass
    assert "the network, not HBM, sets the pass" in t
    # pre-45c (bk-d4): best case, then worst case
    assert f"all-to-alls ({q(low, 's', sig=2)}) outlast its" in t
    assert f"At worst ({q(high, 's', sig=2)}) they exceed the measured" in t
    assert "The all-to-all, not HBM, sets the pace" not in t


def test_d05_5_prefill_all_reduces_are_floors_then_scaled_by_measured_rates(text):
    t = text["05-interconnect.md"]
    size = 2048 * 8192 * 2  # one all-reduce of a 2,048-token prompt's activations, bf16
    nvls = 160 * (2 * ALPHA + size / NVLINK)
    ring = 160 * (14 * ALPHA + 2 * 7 / 8 * size / NVLINK)
    nvls_measured = GIB16 / 275.58e9  # algorithm bandwidth of the 16 GiB NVLS run
    ring_measured = 2 * 7 / 8 * GIB16 / 367.61e9  # bus bandwidth of the 16 GiB ring run
    nvls_scaled = nvls * nvls_measured / (2 * ALPHA + GIB16 / NVLINK)
    ring_scaled = ring * ring_measured / (14 * ALPHA + 2 * 7 / 8 * GIB16 / NVLINK)
    assert f"at least {q(nvls, 's', sig=2)}" in t
    assert (
        f"reached they are about {q(nvls_scaled, 's', sig=2)} and {q(ring_scaled, 's', sig=2)}" in t
    )


def test_d05_3_d05_7_d05_8_model_only_tree_eight_gpus_one_alpha(text):
    t = text["05-interconnect.md"]
    assert "so the tree line is the model's alone" in t
    assert "which by the rule above becomes 8 in practice" in t
    assert "2.8 µs" not in t and t.count(q(ALPHA, "s")) >= 2


def test_d05_9_training_is_a_reference_section_after_the_questions(text):
    t = text["05-interconnect.md"]
    assert "The next two sections train the running example" not in t
    order = [
        "The napkin: our model across GPUs",
        "Check your understanding",
        "Reference: training across GPUs",
        "Pipeline bubbles",
        "Data parallelism across servers",
    ]
    positions = [t.index(heading) for heading in order]
    assert positions == sorted(positions)


def test_d04_5_mxfp8_elements_and_the_two_gpu_all_reduces(text):
    t = text["04-precision.md"]
    assert "MXFP8 fp8 E4M3 or E5M2" in t
    # pre-45 (bk-d2): chapter 04 quotes chapter 05's decode table (floor plus 160 one-shot
    # all-reduces of 8.8 µs at TP 2), one value for one quantity in both chapters
    import content.physics as physics

    # pre-45c (bk-d4): chapter 04 gives fp8's one-user time; chapter 05 reads at STREAM's rate
    floor = physics.decode_weight_bytes("llama-3-70b", "bf16") / 3.18e12
    two = q(floor / 2 + 160 * 8.8e-6, "s", sig=2)
    assert "with vLLM's kernel, two GPUs take" not in t
    assert f"2 {q(floor / 2, 's', sig=2)} {two} " in text["05-interconnect.md"]


def test_d04_6_d04_8_one_metric_in_the_table_and_the_foil_rounded(text):
    t = text["04-precision.md"]
    assert "except in the last row" not in t
    assert "$39.23" not in t
    # F-14 (eighth pass): the foil row is gone, and with it its $39 and its aside
    assert "$39 reference" not in t and "bf16 weights and cache, H100 2 " not in t
    assert "The first row is a foil no one would deploy" not in t
    # ninth pass (bk-d): the napkin's cost bullet, which repeated the table, is gone
    assert "bf16 weights and cache, H100 4 107 " in t and "$0.74 reference" in t


def test_d05_6_the_staircase_says_which_bandwidths_are_not_h100_measurements():
    from courseware.book_bars import staircase_rows

    scopes = {r["name"]: r["scope"] for r in staircase_rows()}
    assert scopes["shared memory / L1"] == "all SMs together, derived"
    # F-19 (eighth pass): the part it was measured on is in the name, read from the catalog
    assert scopes["L2 cache (H200)"] == "per GPU, measured"


def test_d04_4_nvfp4s_accuracy_label_has_no_number_it_lacks(text):
    t = text["04-precision.md"]
    assert "≈ 8-bit" not in t
    assert "$0.20 unproven" in t
    assert "no independent study like Kurtic et al.'s covers it yet" in t
