"""Chapters 04-05, the third fresh-eyes edit (report pre-45c, bk-d4).

Each test fails on the text at 7480d18. Figures are recomputed from raw inputs (datasheet,
configs), not from the functions the chapters call.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.courseware.book_text import chapter_texts

BOOK = Path(__file__).resolve().parents[2] / "content" / "book"
TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "courseware"


@pytest.fixture(scope="module")
def texts():
    return chapter_texts(("04-precision.md", "05-interconnect.md"))


@pytest.fixture(scope="module")
def sources():
    return {name: (BOOK / name).read_text() for name in ("04-precision.md", "05-interconnect.md")}


def _main(text: str) -> str:
    return text.split(" Key takeaways ")[0]


# ---- section 3: wrong or misleading ------------------------------------------------------------


def test_a_link_ridge_caption_promises_no_overlap_megatron_lacks():
    from courseware.book_bars import link_ridge_html

    html = str(link_ridge_html())
    assert "leaves the layer compute-bound" not in html
    assert "could hide the wire behind the compute if the schedule overlapped them" in html
    assert "Megatron&#x27;s does not" in html


def test_b_smoothing_example_takes_the_square_root_in_words(texts):
    precision = texts["04-precision.md"]
    assert (64 * 0.25) ** 0.5 == 4
    assert "both sides end at the square root of 64 × 0.25 , 4," in precision


def test_c_scale_overhead_starts_at_nf4_double_quantizations_eighth(texts):
    precision = texts["04-precision.md"]
    # nf4 with double quantization: an 8-bit scale per 64 weights and an fp32 per 256 scales
    overhead = 8 / 64 + 32 / (64 * 256)
    assert abs(overhead - 1 / 8) < 0.01
    assert "about a sixth of a bit" not in precision
    assert "from about an eighth of a bit per value (nf4 with double quantization)" in precision


def test_d_latency_bullet_gives_fp8s_one_user_time_not_bf16s(texts):
    main = _main(texts["04-precision.md"])
    bullet = main[main.index("Latency.") : main.index("The row to deploy")]
    assert "bf16" not in bullet and "two GPUs take" not in bullet
    assert "fp8 on two H100s gives a token every 12 ms" in bullet
    assert "before the all-reduces" in bullet


def test_e_usable_memory_is_vllms_90_percent_less_its_overheads(texts):
    interconnect = texts["05-interconnect.md"]
    assert "(vLLM's 90%)" not in interconnect
    assert "(vLLM's 90%, less its own overheads)" in interconnect
    assert 0.9 * 80 * 2**30 > 73e9 > 71.3e9  # 90% of 80 GiB is 77 GB, more than either figure used


def test_f_t5_rule_covers_inference_and_fine_tuning(texts):
    precision = texts["04-precision.md"]
    assert "Serve a model in the format it was trained in." not in precision
    assert "it returns NaNs in fp16 at inference" in precision
    assert "Serve or fine-tune a model in a format with the range it was trained in." in precision


# ---- one value per quantity, one meaning per term ---------------------------------------------


def test_two_gpu_bf16_step_uses_streams_bandwidth_in_both_chapter_05_tables(texts):
    main = _main(texts["05-interconnect.md"])
    assert "(the decode section used the datasheet's)" not in main
    assert "Weights read at STREAM's rate" in main
    row = main[main.index("Weights read at STREAM's rate") :][:200]
    assert " 2 22 ms 23 ms 22 ms " in row  # read, vLLM one-shot, TensorRT-LLM
    napkin = main[main.index("Pass = time per token") :][:200]
    assert " 23 ms " in napkin


def test_gptq_bits_have_one_value_and_its_critical_batch_one_number(sources, texts):
    precision = texts["04-precision.md"]
    assert "4.16 bits" not in precision and "4.156 bits for GPTQ and AWQ int4" in precision
    assert "[^crit4]" not in sources["04-precision.md"]
    assert "critical batch of about 80 sequences, its scales and 16-bit output head" in precision


def test_ridge_is_never_a_batch(texts):
    precision = texts["04-precision.md"]
    assert "reaches the bf16 ridge at about" not in precision
    assert "has a weight-only critical batch of about" in precision


def test_four_bit_weights_leave_almost_half_not_most(texts):
    precision = texts["04-precision.md"]
    assert "leave most of the GPU to the cache" not in precision
    assert "4-bit weights leave almost half the GPU to the cache" in precision
    assert (73 - 39.8) / 73 < 0.5  # the GPTQ checkpoint on one H100's usable memory


def test_wire_ridge_condition_is_one_sentence_before_the_figure(sources):
    md = sources["05-interconnect.md"]
    joined = md.index("bandwidth-bound, which they\nare once a step carries more than about")
    assert joined < md.index("{% link_ridge %}")
    assert "They are when a step carries" not in md


def test_floor_ratio_is_a_lower_floor_not_a_faster_read(texts):
    precision = texts["04-precision.md"]
    assert "Byte for byte, 4-bit reads" not in precision
    assert "4-bit's floor is 3.7× lower than bf16's" in precision


# ---- structure and wording -----------------------------------------------------------------------


def test_figure_data_tables_are_folded(texts):
    from courseware.book_rooflines import precision_roofline_html

    assert '<details class="figure-data">' in str(precision_roofline_html())
    template = (TEMPLATES / "_allreduce_figure.html").read_text()
    details = template.index('<details class="figure-data">')
    assert details < template.index("<table") and details < template.index("plotted:")


def test_deepseek_example_best_case_then_worst(texts):
    main = _main(texts["05-interconnect.md"])
    assert "occupies no SM" not in main
    assert "even at best one pass's all-to-alls" in main
    assert "At worst (65 ms) they exceed" in main  # not "65 ms ms"
    assert "so they must overlap each other and the compute" in main


def test_capacity_rounding_rule_is_its_own_paragraph(sources):
    md = sources["05-interconnect.md"]
    assert "\n\nA computed count is then rounded up. Tensor parallelism wants" in md
    assert "> reserve: NCCL's buffers" not in md
    assert "[^split-reserve]:" in md


def test_eight_bit_opening_and_llm_int8_once(sources, texts):
    precision = texts["04-precision.md"]
    assert "The two cancel: the critical batch stays at 295." in precision
    assert "LLM.int8() saves memory, not time" not in precision
    assert 'is the exception to "eight bits cost nothing"' not in sources["04-precision.md"]


def test_napkin_limits_moved_and_said_once(texts):
    main = _main(texts["04-precision.md"])
    assert "The limits." not in main
    assert "Newer, longer-trained models also lose more" not in texts["04-precision.md"]
    assert "The GPTQ prices are optimistic" in main


def test_small_wording_fixes(texts):
    interconnect = texts["05-interconnect.md"]
    assert "per link whatever the number of GPUs" in interconnect
    takeaway = interconnect[interconnect.index(" Key takeaways ") :]
    assert "two micro-batches, as DeepSeek-V3 is." in takeaway
    assert "only transfers that overlap each other and the compute fit the measured pass" not in (
        takeaway
    )


def test_capacity_table_header_fits_a_phone(sources):
    md = sources["04-precision.md"]
    assert "| Format | Bits | Checkpoint | H100s | bf16 cache | fp8 cache |" in md
    assert "count sequences of 4,096 tokens beside the weights:" in md
