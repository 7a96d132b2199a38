"""Chapter 03, second fresh-eyes edit (bk-c3): /work/reviews-out/pre-03b.md, the wrong or
misleading statements (3a-e) and the structural items (1-14). Each test recomputes its figures
from datasheet inputs where it has any, and fails on the text bk-c2 left (a4f029b).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from courseware.book_serving import pass_time_rows
from tests.courseware.book_text import chapter_text, main_text, q
from tests.courseware.book_text import section as _section

SOURCE = Path(__file__).resolve().parents[2] / "content" / "book" / "03-inference.md"
H100_BW, H100_PEAK = 3.35e12, 989.4e12  # datasheet: HBM3, dense bf16
L8_MATMUL = 8_030_261_248 - 128_256 * 4_096  # every weight but the input table
KV_TOKEN = 2 * 32 * 8 * 128 * 2  # 128 KiB
BATCH = 174  # the chapter's operating point
PROMPTS = 2000 * BATCH / 499  # prompt tokens a pass prefills in steady state


def _pass(batch: int = BATCH, extra: float = 0) -> float:
    weights = 2 * L8_MATMUL / H100_BW
    arithmetic = (batch + extra) * 2 * L8_MATMUL / H100_PEAK
    return max(weights, arithmetic) + KV_TOKEN * 2500 * batch / H100_BW


@pytest.fixture(scope="module")
def text():
    return chapter_text("03-inference.md")


@pytest.fixture(scope="module")
def main(text):
    return main_text(text)


def test_3a_prefix_caching_saves_memory_in_decode_and_names_shared_prefix_kernels(main):
    prefix = _section(main, "Prefix caching #", "Disaggregating prefill")
    assert "The saving is memory, not time." not in prefix
    assert "In decode the saving is memory, not time" in prefix
    assert "FlashInfer" in prefix and "Hydragen" in prefix


def test_3b_memory_admits_434_conversations_but_their_pass_breaks_the_promise(main):
    admitted = 434  # the prefix stored once (recomputed in test_book_fresh_edit_03)
    decode = _pass(admitted)  # each still reads 2,500 tokens of cache, compute-bound matmuls
    assert decode > 25e-3
    prefix = _section(main, "Prefix caching #", "Disaggregating prefill")
    assert "conversations, past the critical batch" not in prefix
    # bk-c4 (pre-03c, 10): the sentence names what does not follow
    assert "admits 434 conversations. The latency promise does not" in prefix
    assert f"their decode pass takes {q(decode, 's', sig=2)}, far over the promise" in prefix


def test_3c_verification_runs_k_plus_1_positions(main):
    spec = _section(main, "Speculative decoding:", "What a million tokens")
    assert "as it would read a k -token prompt" not in spec
    assert "one pass over k + 1 positions" in spec
    assert "Verification sends two positions per sequence" in spec


def test_3d_the_cost_ratio_is_the_attribution_and_list_prices_are_prices(main):
    cost = _section(main, "What a million tokens", "The napkin #")
    assert "Our ratio is larger because" not in cost
    # bk-c4 (pre-03c, 7): one caveat in the text, the attribution spelled out in the reference
    assert "Our 9.9× rests on charging the whole decode pass to output tokens" in cost
    assert "a list price is a price, not a cost" in cost
    assert "another split gives another ratio" not in cost
    reference = chapter_text("03-inference.md").split("The bill at the forecast")[1]
    assert "another split gives another ratio" in reference


def test_3e_the_roofline_is_one_chapter(main):
    assert "The last two chapters built" not in main
    assert main.startswith("The roofline chapter built a model")


def test_2_the_promise_is_made_in_the_opening(main):
    opening = main[: main.index("One token at a time #")]
    assert "within 25 ms a token" in opening
    assert "A promise of 25 ms per output token" not in main
    assert "The 25 ms promise is broken" in main


def test_1_one_name_per_pass_everywhere(main):
    decode, service = q(_pass(), "s", sig=2), q(_pass(extra=PROMPTS), "s", sig=2)
    assert (decode, service) == ("22 ms", "30 ms")
    assert f"The decode pass: {decode}" in main
    assert f"The decode pass, {decode}, grows to {service} : our time per output token" in main
    assert f"time it on the decode pass, {decode}, with the batch held" in main  # bk-c4, 9
    assert "the decode pass alone" not in main and "empty batch" not in main
    # the chunked-prefill figure: two bars, no overlapped bound that no sentence explains
    rows = pass_time_rows()
    assert [label for label, _ in rows] == [
        f"the decode pass, {BATCH} conversations",
        "the service's pass, + about 700 prompt tokens",  # bk-c4 (pre-03c, 5): as the text
    ]


def test_3_attention_kernels_come_after_the_kv_cache_is_defined(main):
    batching = _section(main, "Batching and the critical batch size #", "The KV cache #")
    assert "attention" not in batching and "Roofline of the H100" not in batching
    kv = _section(main, "The KV cache #", "Continuous batching")
    assert kv.index("the KV cache") < kv.index("the attention kernels read each sequence's own")
    assert kv.index("Roofline of the H100") < kv.index("Kernels that run one after another add")


def test_4_the_benchmark_is_the_last_main_section_and_its_worked_example_a_reference(text, main):
    assert main.index("The napkin #") < main.index("Does the forecast hold?")
    bench = main[main.index("Does the forecast hold?") :]
    assert "Worked example" not in bench and "falls outside the claim" not in bench
    assert (
        "At batch 384 the matmuls are past the ridge, where the best rate depends on shape" in bench
    )
    reference = text[text.index("Reference: attention") :]
    assert "Forecasting the benchmark's first row" in reference
    assert "Worked example: forecasting a published serving benchmark" in reference


def test_6_the_bill_table_prints_the_figures_its_ratio_follows_from(main):
    cost = _section(main, "What a million tokens", "The napkin #")
    times = re.search(r"input (\S+) (µs|ns) \S+ output (\S+) (µs|ns)", cost)
    assert times, cost[:400]
    t_in, t_out = float(times.group(1)), float(times.group(3))
    printed = re.search(r"An output token costs (\S+)×", cost).group(1)
    assert f"{t_out / t_in:.2g}" == printed
    assert "4.8× the weights-only floor" in main


def test_7_one_meaning_per_symbol_and_for_floor(main):
    assert "reads B = 15 GB" not in main and "reads M = 15 GB of weights" in main
    assert "with P the weights a pass multiplies" in main and "billion weights, 2 P n" not in main
    assert "not a floor" not in main and "loads only the matmuls" not in main
    # bk-c4 (pre-03c, 8): the mean length moved to the napkin's note
    assert "at the mean length the caches' read is a tenth shorter" not in main


def test_8_one_intensity_formula_for_decode_batch_and_prefill(main):
    assert "I prefill ≈ 2 P n P s = 2 n s" in main
    assert "the batch does across users what prefill does across a prompt" in main


def test_9_to_11_asides_and_awkward_sentences(main):
    assert "whatever bounds the pass" not in main
    assert "Chunked prefill # Inside a busy server, a newcomer's prefill shares the GPU" in main
    assert "and its TTFT is set by the passes it rides in" in main
    assert "4,096 wide" not in main and "0.35 requests" not in main
    assert "one request leaves about every 3 passes" in main
    # bk-c4 (pre-03c, 15): "reserves", not the ambiguous "claims"
    assert "vLLM reserves 90% of the device" in main and "this chip has no faster" in main
    assert "295 × 2 / 2" not in main and "a quarter of what full multi-head" in main


def test_14_the_wide_formulas_break_onto_two_lines():
    source = SOURCE.read_text()
    for head in ("\\text{KV bytes per token} =", "t_{\\text{pass}} = \\max", "\\text{dollars per"):
        formula = source[source.index(head) :].split("$$")[0]
        assert "\\\\" in formula, head
