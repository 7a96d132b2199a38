"""Chapter 03, third fresh-eyes edit (bk-c4): /work/reviews-out/pre-03c.md, the four wrong or
misleading statements and items 1-17. Each test recomputes its figures from datasheet inputs
where it has any, and fails on the text bk-c3 left.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from courseware.book_serving import pass_time_html, pass_time_rows
from tests.courseware.book_text import authored, chapter_text, main_text, q
from tests.courseware.book_text import section as _section

SOURCE = Path(__file__).resolve().parents[2] / "content" / "book" / "03-inference.md"
H100_BW, H100_PEAK = 3.35e12, 989.4e12  # datasheet: HBM3, dense bf16
NDR = 400e9 / 8  # one InfiniBand NDR port, bytes/s
L8_MATMUL = 8_030_261_248 - 128_256 * 4_096  # every weight but the input table
KV_TOKEN = 2 * 32 * 8 * 128 * 2  # 128 KiB
BATCH = 174  # the chapter's operating point
PROMPTS = 2000 * BATCH / 499  # prompt tokens a pass prefills in steady state
WEIGHTS = 2 * L8_MATMUL / H100_BW  # the weights' read, 4.48 ms
PER_TOKEN = 2 * L8_MATMUL / H100_PEAK  # one token's matmul arithmetic


def _pass(batch: int = BATCH, extra: float = 0) -> float:
    return max(WEIGHTS, (batch + extra) * PER_TOKEN) + KV_TOKEN * 2500 * batch / H100_BW


@pytest.fixture(scope="module")
def text():
    return chapter_text("03-inference.md")


@pytest.fixture(scope="module")
def main(text):
    return main_text(text)


def test_a_prefill_chunk_adds_work_chiefly_not_only_to_the_matmuls(main):
    # a chunk's attention over its own prefix and earlier chunks' cache is a few percent more
    assert "A piece adds work only to the matmuls" not in main
    assert "A piece adds work chiefly to the matmuls" in main
    caption = pass_time_html()
    assert "add work to the matmuls only" not in caption
    assert "add work chiefly to the matmuls" in caption


def test_b_at_a_fixed_load_the_chunk_size_sets_no_exchange_rate(main):
    # the average pass carries the load, about 700 prompt tokens, whatever the chunk size
    assert q(_pass(extra=PROMPTS), "s", sig=2) == "30 ms"
    chunked = _section(main, "Chunked prefill #", "Prefix caching #")
    assert "the chunk size sets the exchange rate" not in chunked
    assert (
        "The load fixes how many prompt tokens a pass carries on average; the chunk size only "
        "decides how evenly they arrive. Small chunks keep every pass near 30 ms" in chunked
    )


def test_c_speculation_holds_the_batch_and_counts_the_heads_memory(text, main):
    head = 2 * (218_112_000 + 2 * 4_096 * 4_096)  # one decoder layer and the 2d x d projection
    cache = KV_TOKEN * 2500 * BATCH / 32  # a one-layer cache for the batch
    assert q(head + cache, "B", sig=2) == "2.3 GB"
    displaced = (head + cache) / (KV_TOKEN * 2500)
    assert round(displaced) == 7  # the batch could not stay at 174 with the head in memory
    assert f"with the batch held at {BATCH} and prompts on GPUs of their own" in main
    assert "room for about 7 of our conversations" in text


def test_d_the_napkin_names_its_floors_and_the_measured_gap(main):
    bench = main[main.index("Does the forecast hold?") :]
    errors = [float(e) for e in re.findall(r"\((\d+(?:\.\d+)?)%\)", bench)]
    assert len(errors) == 3 and all(e > 0 for e in errors)
    gap = f"{min(errors):.0f}–{max(errors):.0f}% fast"
    assert gap == "9–16% fast"
    napkin = _section(main, "The napkin #", "Does the forecast hold?")
    assert "Floors at datasheet rates, every conversation at its final 2,500 tokens" in napkin
    assert gap in napkin
    largest = math.floor(25e-3 / (KV_TOKEN * 2500 / H100_BW + (1 + 2000 / 499) * PER_TOKEN))
    assert f"a batch of at most {largest}, fewer at real rates" in napkin
    # one qualification before the table: the mean length and the forecast went to a note
    assert "Every entry is priced" not in napkin and "a tenth shorter" not in napkin


def test_1_disaggregation_closes_the_napkins_loop(main):
    decode = _pass()
    assert decode < 25e-3  # the decode GPU alone keeps the promise
    first = 2000 * 2 * L8_MATMUL / H100_PEAK + KV_TOKEN * 2000 / NDR
    assert q(first, "s", sig=2) == "36 ms"
    fleet = _section(main, "Disaggregating prefill", "Speculative decoding:")
    assert (
        f"The promise: decode passes take {q(decode, 's', sig=2)}, inside the 25 ms promise; a "
        "first token arrives after the prefill and the trip, before queueing: 36 ms" in fleet
    )


def test_3_the_cache_equals_the_weights_at_a_stated_batch(text, main):
    tokens = 2 * L8_MATMUL / KV_TOKEN
    assert authored(tokens, 3) == "115,000"
    kv = _section(main, "The KV cache #", "Continuous batching")
    assert (
        "The caches' read equals the weights' once the batch holds weights ÷ KV bytes per token "
        f"≈ 115,000 tokens of context: {tokens / 2500:.0f} of our conversations" in kv
    )
    takeaways = text[text.index("Key takeaways") : text.index("Check your understanding")]
    assert "weights ÷ KV bytes per token (115,000 for our model)" in takeaways


def test_4_to_6_one_number_per_quantity(main):
    assert "the 15 GB a pass reads (the checkpoint less its embedding table)" in main
    labels = [label for label, _ in pass_time_rows()]
    assert labels[1] == "the service's pass, + about 700 prompt tokens" and "697" not in main
    one_user = 1 / (WEIGHTS + KV_TOKEN * 2500 / H100_BW)  # tokens/s at batch 1
    cost_one = 1e8 * 3.20 / 3600 / one_user
    ours = 1e8 * 3.20 / 3600 * _pass() / BATCH
    assert f"{cost_one:.0f} cents per million output tokens, {cost_one / ours:.0f}× our" in main
    assert "a thousand requests cost" not in main


def test_7_to_10_one_caveat_one_sense_of_price_and_verbs_with_subjects(text, main):
    cost = _section(main, "What a million tokens", "The napkin #")
    assert "Our 9.9× rests on charging the whole decode pass to output tokens" in cost
    assert "in which output tokens carry the whole decode pass" not in cost
    # "price" is money; a pass is timed
    for timed in ("price it on the decode pass", "Every entry is priced", "conversation priced"):
        assert timed not in main, timed
    assert "A pass is timed kernel by kernel" in text
    assert "A pass is priced kernel by kernel" not in text
    assert ". Latency does not:" not in main and "The latency promise does not:" in main


def test_11_to_17_sentences_terms_and_notes(text, main):
    assert "The cache grows linearly with context and with the batch" not in main
    assert "it cannot hide under the caches' read, which runs in separate kernels" in main
    assert "hides none of it" not in main
    assert f"about {PROMPTS / (295 - BATCH):.0f} times the free piece" in main  # 697 / 121
    assert "the 10% we claim" not in main and "At 384 rows" not in main
    assert "At batch 384 the matmuls" in main
    assert "vLLM reserves 90%" in main and "vLLM claims" not in main
    stream = text[text.index("A forecast divides the floor") :].split("↩")[0]
    assert "RRZE" not in stream and "Databricks" not in stream
    reference = text[text.index("The floor's forecast and other read rates") :]
    assert "RRZE's read benchmark" in reference and "Databricks measured" in reference
    assert f"Our batch brings {BATCH} tokens" in main
    assert f"two positions per sequence, {2 * BATCH} tokens," in main


def test_the_main_text_does_not_grow(main):
    # bk-c3 left 4,327 rendered words before "Key takeaways"; bk-c's pin is 80% of 5,412
    assert len(main.split()) <= 4_327
