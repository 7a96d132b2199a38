"""Chapters 02-03, seventh pass (book-l): the open findings of the sixth reviews
(``docs/reviews/book-00-02-sixth.md`` C02-2..C02-8, ``docs/reviews/book-03-05-sixth.md``
D03-4..D03-10) and the two serving pictures chapter 03 gained.

Each test renders the chapter (or the figure) with its live figures and checks a claim it
recomputes from raw inputs (datasheets, the models' configs); each fails on the text before.
"""

from __future__ import annotations

import re

import pytest

from courseware.book_serving import (
    pass_time_html,
    pass_time_rows,
    request_bill_html,
    request_time_rows,
)
from courseware.rendering import render_chapter_text
from tests.courseware.book_text import BOOK, chapter_texts

H100_PEAK, H100_BW = 989.4e12, 3.35e12  # dense bf16 FLOP/s, HBM bytes/s (datasheet)
# Llama-3-8B: 32 layers of 4096 wide, 8 KV heads of 128, vocabulary 128,256, FFN 14,336.
L3_LAYERS, L3_D, L3_FFN, L3_VOCAB = 32, 4096, 14336, 128256
# Per layer: q and o (d²), k and v (d × 1024), gate/up/down (3 · d · ffn), two norms (2d).
L3_LAYER = 2 * L3_D * L3_D + 2 * L3_D * 1024 + 3 * L3_D * L3_FFN + 2 * L3_D
L3_MATMUL = L3_LAYERS * L3_LAYER + L3_D + L3_VOCAB * L3_D  # + final norm + LM head
L3_KV_TOKEN = 2 * L3_LAYERS * 8 * 128 * 2  # bytes per cached token in bf16


@pytest.fixture(scope="module")
def text():
    return chapter_texts(("02-roofline.md", "03-inference.md"))


def _html(name: str) -> str:
    return render_chapter_text((BOOK / name).read_text(), source=name).html


# ---- chapter 02 -------------------------------------------------------------------------------


def test_c02_2_b_is_the_batch_and_s_the_bytes_per_element():
    source = (BOOK / "02-roofline.md").read_text()
    assert r"\frac{2}{s} \cdot \frac{h}{h_{kv}}" in source
    # pre-02b (bk-b3): a tile's sides are m_t and n_t, since t is a time.
    assert r"\frac{2\, m_t n_t}{(m_t + n_t)\, s}" in source
    assert not re.search(r"\bt_[mn]\b", source)  # t stays a time
    assert "elements of $s$ bytes each" in source
    # b never stands for bytes in a formula any more
    assert not re.search(r"h_\{kv\} d\\, b|\(m_t \+ n_t\)\\, b|h_\{kv\} b\)", source)
    # b is still the batch; pre-02b (bk-b3): B is the bandwidth only, bytes are spelled out.
    assert "$I = 2b\\ \\text{FLOPs} \\div 2\\ \\text{bytes} = b$ FLOP/byte" in source


def test_c02_3_the_block_table_says_weight_bytes_and_the_note_counts_the_rest(text):
    roofline = text["02-roofline.md"]
    assert "prefill 1024 projections, MLP (weight bytes)" in roofline
    # Llama-2-7B: activations in and out of the projections, 7·4096 + 3·11008 elements/token.
    elements = 7 * 4096 + 3 * 11008
    # Ninth review (rv-1), I-16: the output projection's input is counted with attention.
    assert (
        f"add {elements:,} elements per token (the output projection's input, attention's "
        "output, is counted with attention), 126 MB for the prompt" in roofline
    )
    weights = 2 * 202_383_360  # bf16 bytes of one block's projections and MLP
    intensity = 2 * 1024 * 202_383_360 / (weights + elements * 2 * 1024)
    assert round(intensity, -1) == 780
    assert "brings their intensity to about 780 FLOP/byte" in roofline
    # elementwise: 14·d + 3·ffn elements of 2 bytes per token
    assert (14 * 4096 + 3 * 11008) * 2 == 180_736
    assert "move about 181 kB per token" in roofline


def test_c02_6_block_labels_are_short_enough_to_sit_by_their_points():
    from courseware.book_rooflines import block_points

    labels = [label for label, _, _ in block_points()]
    assert all(len(label) <= 30 for label in labels if label.startswith("prefill"))
    assert "prefill 1,024: attention" in labels and "prefill 1,024: projections" in labels


def test_c02_7_reference_material_is_after_the_questions_with_its_anchors():
    html = _html("02-roofline.md")
    body = html.split('id="check-your-understanding"')[1]
    assert 'id="reference"' in body
    # pre-02b (bk-b3): tiling is reference now (#tiling, with #wave-reuse inside it).
    assert 'id="wave-reuse"' in body
    for anchor in ("attention-variants", "tiling", "measured-ceilings"):
        assert f'id="{anchor}"' in body, anchor
        assert f'href="#{anchor}"' in html.split('id="check-your-understanding"')[0], anchor
    argument = re.sub(r"<[^>]+>", " ", html.split('id="check-your-understanding"')[0])
    assert "32,768-token conversation" not in argument  # the sliding-window example moved
    assert "STREAM copy" not in argument  # the six-row table moved


def test_c02_8_every_measured_ceiling_names_its_source(text):
    ceilings = text["02-roofline.md"].split("Measured ceilings of an H100 SXM")[1]
    ceilings = ceilings.split("Sources")[0]
    for source in ("Azure, STREAM dot", "Azure, STREAM copy", "Bekman, shape search", "XLA table"):
        assert source in ceilings, source
    assert ceilings.count("Azure, cuBLASLt") == 2


# ---- chapter 03 -------------------------------------------------------------------------------


def test_d03_4_the_converting_kernel_row_says_what_it_counts(text):
    t = text["03-inference.md"]
    # eighth pass (F-9): the caveat is a note of its own beside the fp8 table (reference)
    assert "The table's last row counts only the converted cache's bf16 read" in t
    assert "about 5 bytes per element against 2) make it admit fewer still" in t


def test_d03_5_the_memory_count_is_a_worst_case(text):
    t = text["03-inference.md"]
    budget = 73.3e9  # the serving level the chapter prints (vLLM's 90%, less the reserves)
    weights = 2 * (L3_MATMUL + L3_VOCAB * L3_D)  # the checkpoint, embedding table included
    mean = (budget - weights) / (2250 * L3_KV_TOKEN)
    assert 192 <= mean <= 195
    assert "That count sizes every conversation at its final length, a worst case" in t
    assert re.search(r"2,250 tokens, which would admit about 19\d\.", t)


def test_d03_6_the_acceptance_rate_is_an_assumption_and_the_gap_has_two_ends(text):
    t = text["03-inference.md"]
    assert "the worked example takes the low rate, for want of a measurement" in t
    high = 1 - 1.8 / (1 + 0.9)  # DeepSeek-V3: 1.8× measured, 90% acceptance
    assert f"{100 * high:.2g}% at the high one" in t
    assert "is at most what DeepSeek's draft cost" not in t


def test_d03_7_the_figure_counts_attention_and_names_the_l2_measurement():
    from courseware.book_figures import serving_roofline_html

    html = serving_roofline_html()
    # bk-c2: the L2 slope and the fp32 ceiling are chapter 02's; this figure draws neither
    assert "L2 (H200)" not in html and "fp32 lanes" not in html
    assert "the attention kernels, which read each sequence&#x27;s KV cache" in html


def test_d03_8_one_rounding_for_the_conversation_cache_and_the_floor(text):
    t = text["03-inference.md"]
    cache = 2500 * L3_KV_TOKEN
    assert cache == 327_680_000
    assert "328 MB" in t and "330 MB" not in t
    floor = 2 * L3_MATMUL / H100_BW
    assert f"{1e3 * floor:.3g} ms" == "4.48 ms"
    assert t.count("4.48 ms") >= 2 and "4.5 ms" not in t


def test_d03_9_the_pass_picture_draws_the_passes_the_text_computes():
    # eighth review of 03-05 (H-1): the kernels in turn; the overlapped bound, in no text, left
    # the figure in the second fresh-eyes edit (bk-c3, item 1): two bars, the chapter's two names
    (alone, in_turn) = pass_time_rows()
    # eighth pass (F-7): the operating point, 174 conversations, and the 697 prompt tokens a
    # pass must prefill in steady state (2,000 x 174 / 499), as the chapter and its napkin
    batch = 174
    prompts = round(2000 * batch / 499)
    assert prompts == 697
    weights = 2 * L3_MATMUL / H100_BW
    caches = batch * 2500 * L3_KV_TOKEN / H100_BW
    arithmetic = (batch + prompts) * 2 * L3_MATMUL / H100_PEAK

    def end(row):
        return max(start + d for _, start, d in row[1])

    assert end(alone) == pytest.approx(weights + caches, rel=1e-3)
    assert arithmetic > weights  # the matmuls turn compute-bound
    assert end(in_turn) == pytest.approx(arithmetic + caches, rel=1e-3)
    assert 1e3 * end(in_turn) == pytest.approx(30.2, abs=0.05)  # the review's per-kernel pass
    html = pass_time_html().replace("&#x27;", "'")
    assert "30 ms" in html and "22 ms" in html and "arithmetic, exposed" in html
    # bk-c4 (pre-03c, 5): the figure prints the load as the text does, "about 700"
    assert f"the service's pass, + about {round(prompts, -2)} prompt tokens" in html
    assert f"+ {prompts} prompt" not in html and "512" not in html
    assert "the decode pass, 174 conversations" in html and "bound" not in html
    assert "not overlapped" not in html
    # a 30 ms bar gets ticks every 10 ms: at 5 ms, neighbouring labels touch at 390 px
    assert ">10 ms<" in html and ">40 ms<" in html and ">5 ms<" not in html


def test_d03_9_the_bill_picture_prices_prompts_three_ways():
    # second fresh-eyes edit (bk-c3, item 12): our service's row first, split into what its
    # input tokens add to the passes and its output tokens' share of the decode pass
    ours, own = request_time_rows()  # the cached arrangement is the reference table's
    prefill = 2 * L3_MATMUL * 2000 / H100_PEAK
    assert own[1][0] == ("compute", 0.0, pytest.approx(prefill, rel=1e-3))
    batch, prompts = 174, 2000 * 174 / 499
    weights, caches = 2 * L3_MATMUL / H100_BW, batch * 2500 * L3_KV_TOKEN / H100_BW
    alone = weights + caches
    loaded = (batch + prompts) * 2 * L3_MATMUL / H100_PEAK + caches
    added, answer = 499 * (loaded - alone) / batch, 499 * alone / batch
    assert [(k, d) for k, _, d in ours[1]] == [
        ("compute", pytest.approx(added, rel=1e-3)),
        ("cache", pytest.approx(answer, rel=1e-3)),
    ]
    html = request_bill_html()
    assert f"what the prompt adds to the passes it rides in, {added / (added + answer):.0%}" in html
    assert "our service: prompt in the passes" in html


def test_d03_9_the_pictures_sit_in_the_sections_that_explain_them():
    html = _html("03-inference.md")
    chunked = html.split('id="chunked-prefill"')[1].split('id="prefix-caching"')[0]
    # bk-c3 (item 12): the bill's picture, our service's split first, is the cost section's
    bill = html.split('id="cost"')[1].split('id="napkin"')[0]
    assert "pass-time" in chunked and "request-bill" in bill
    reference = html.split('id="check-your-understanding"')[1]
    assert 'id="mixture-of-experts"' in reference and 'id="by-the-numbers"' in reference
