"""Chapters 04 and 05 after the ninth, structural pass (bk-d), on the eighth review of 03-05.

Chapter 04's napkin prices every row kernel by kernel and so gives one price per format (H-10,
H-15, H-9); its precision roofline names no single format on its y axis (H-14). Each test
recomputes from raw inputs (datasheet, config, the catalogued STREAM fraction) and fails on the
text at 195323b.
"""

from __future__ import annotations

import math
import re

import pytest

from courseware.book_rooflines import precision_roofline_html
from tests.courseware.book_text import chapter_texts, q

H100_PEAK, H100_BW = 989.4e12, 3.35e12  # dense bf16 FLOP/s, HBM bytes/s (datasheet)
L70 = 70_553_706_496  # Llama-3-70B, the checkpoint
TABLE = 128256 * 8192  # its input table (looked up) and, untied, its output head
KV70 = 2 * 80 * 8 * 128  # elements per cached token


@pytest.fixture(scope="module")
def texts():
    return chapter_texts(("04-precision.md", "05-interconnect.md"))


def test_h10_the_4_bit_row_on_two_gpus_is_priced_kernel_by_kernel(texts):
    from content.physics import measurement

    text = texts["04-precision.md"]
    stream = measurement("h100-sxm/stream-dot").value / H100_BW  # the fraction a read reaches
    body = L70 - 2 * TABLE
    weights = body * (0.5 + 2 / 128 + 0.5 / 128) + 2 * TABLE  # int4, g=128, 16-bit head
    batch = 153
    assert "GPTQ int4, fp8 cache, H100 2 153" in text
    matmuls = max(weights / 2 / (H100_BW * stream), 2 * (L70 - TABLE) * batch / 2 / H100_PEAK)
    assert 2 * (L70 - TABLE) * batch / 2 / H100_PEAK > weights / 2 / (H100_BW * stream)
    cache = KV70 * 4096 * batch / 2 / (H100_BW * stream)  # fp8: one byte an element
    assert f"the pass lengthens to {q(matmuls + cache, 's', sig=2)}" in text
    assert "its bf16 matmuls turn compute-bound" in text


def test_h15_the_napkin_gives_one_price_per_row(texts):
    text = texts["04-precision.md"]
    napkin = text.split("The napkin: what a million tokens costs")[1].split("By the numbers")[0]
    assert not re.search(r"\$\d\.\d\d\s*–\s*\$", napkin)  # no price range
    assert "under either assumption" not in napkin
    assert "forecast plus the arithmetic" not in napkin
    assert "each pass priced kernel by kernel" in napkin  # pre-45: the method is a note


def test_h14_the_precision_roofline_names_no_single_format_on_its_y_axis():
    html = str(precision_roofline_html())
    assert "attainable FLOP/s (log scale)" in html
    assert "attainable fp8-e4m3 FLOP/s" not in html
    assert "fp8-e4m3 ridge point" in html or "fp8 ridge point" in html


# ---- chapter 05: one argument, one running example ------------------------------------------


def _main(text: str) -> str:
    return text.split(" Key takeaways ")[0]


def test_h23_the_chapter_states_its_argument_and_keeps_training_in_the_reference(texts):
    t = texts["05-interconnect.md"]
    main = _main(t)
    assert "Splitting adds bandwidth and costs start-ups" in main[:600]
    assert "served on two, four and eight H100s" in main[:900]
    assert "ZeRO" not in main and "Pipeline bubbles" not in main
    assert "Reference: training across GPUs" in t and "ZeRO" in t
    moe = main.split("Serving large mixture-of-experts models")[1]
    assert moe.lstrip(" #").startswith("Expert parallelism is the same trade, with all-to-alls")
    # the napkin closes on the argument, with the running example on two, four and eight GPUs
    napkin = main.split("The napkin: our model across GPUs")[1]
    assert "The argument, closed. More GPUs buy bandwidth" in napkin
    for gpus in (2, 4, 8):
        assert re.search(rf" {gpus} \d+ \S+ ms ", napkin)


def test_h22_the_decode_table_prints_no_column_it_disowns(texts):
    t = texts["05-interconnect.md"]
    decode = t.split("When start-up latency decides multi-GPU decode")[1].split("When the wires")[0]
    assert "NCCL's ring" not in decode and "verdict" not in decode
    # pre-45c (bk-d4): the first column is the read at STREAM's bandwidth, as in the napkin
    head = "GPUs Weights read at STREAM's rate With vLLM's one-shot kernel With TensorRT-LLM's"
    assert head + " kernel 2 " in decode


def test_h17_the_measured_pass_has_both_readings_in_the_table(texts):
    t = texts["05-interconnect.md"]
    one = 2 / (20 + 22)  # a token a request at 20 to 22 tokens/s
    assert f"measured pass, one token a request {q(one, 's', sig=2)}" in t
    assert f"measured pass, if MTP drafts a second {q(1.8 * one, 's', sig=2)}" in t
    latency_bound = 2 * 58 * (192e-6 + 369e-6)  # DeepEP, EP128, every micro-batch
    assert one < latency_bound < 1.8 * one  # why the table carries both
    # pre-45c (bk-d4): the main text keeps the conclusion, stated for the worst case
    assert "so they must overlap each other and the compute" in t


def test_h18_the_nvlink_to_infiniband_ratio_is_the_h800s(texts):
    t = texts["05-interconnect.md"]
    # pre-45 (bk-d2): the ratio now belongs to prefill and training's NVLink forwarding
    assert f"3.2× faster on the H800 (whose NVLink is cut; {450e9 / 50e9:.0f}× on an H100)" in t


def test_h19_deepeps_rate_is_its_accounting_not_a_wire_rate(texts):
    t = texts["05-interconnect.md"]
    # ninth review of 03-05 (J-10, bk-f): our count, not DeepEP's printed rate
    assert "by our count of every per-expert copy" in t
    assert "not a wire rate, since each H800 has one 400 Gb/s port, 50 GB/s" in t
    assert "over RDMA at" not in t


def test_the_interconnect_napkin_prices_the_pass_kernel_by_kernel_plus_all_reduces(texts):
    from content.physics import measurement, price, step_latency

    t = texts["05-interconnect.md"]
    stream = measurement("h100-sxm/stream-dot").value
    alpha = step_latency("nccl-8xh200-32kib")
    derate = (2**34 / 275.58e9) / (2 * alpha + 2**34 / 450e9)  # the 16 GiB NVLS run / its model
    runtime = 85_045_477_376
    budget = 0.9 * runtime - (1.26 + 3.58) * 2**30  # a split model's engine reserve
    kv = 2 * 80 * 8 * 128 * 2  # bf16 bytes per cached token
    napkin = t.split("The napkin: our model across GPUs")[1].split("By the numbers")[0]
    for gpus in (4, 8):
        batch = math.floor((gpus * budget - 2 * L70) / (kv * 4096))
        weights = 2 * (L70 - TABLE) / gpus / stream
        arithmetic = 2 * (L70 - TABLE) * batch / gpus / H100_PEAK
        # at 320 conversations on eight GPUs the matmuls just turn compute-bound: the kernels'
        # sum is then the arithmetic plus the caches' read, more than one roofline point's
        assert (weights > arithmetic) == (gpus == 4)
        kernels = max(weights, arithmetic) + kv * 4096 * batch / gpus / stream
        allreduce = derate * 2 * 80 * (2 * alpha + batch * 8192 * 2 / 450e9)
        dollars = gpus * price("H100").dollars_per_hour / 3600 / (batch / (kernels + allreduce))
        row = f" {gpus} {batch} " if batch < 1000 else f" {gpus} {batch:,} "
        assert row in napkin
        assert f"{q(kernels + allreduce, 's', sig=2)} {q(dollars * 1e6, 'USD')}" in napkin
