"""Chapter 03, eighth pass (book-p): the seventh review's F-7 (one operating point for the running
example) and F-9 (caveats stacked inside worked examples), and the main line cut to one argument.

Each test renders the chapter with its live figures, recomputes what it checks from raw inputs
(datasheet, the model's config, vLLM's logged reserve) and fails on the text before this pass
(e5f9bd2^^, where a latency-tuned batch of 64 ran beside the memory-limited one).
"""

from __future__ import annotations

import math

import pytest

from tests.courseware.book_text import chapter_texts, q

H100_PEAK, H100_BW = 989.4e12, 3.35e12  # dense bf16 FLOP/s, HBM bytes/s (datasheet)
H100_RUNTIME = 85_045_477_376  # bytes the driver reports for an H100 SXM 80 GB
ENGINE = (1.26 + 1.79) * 2**30  # vLLM's activation peak and non-torch memory (its log)
L8_PARAMS = 8_030_261_248  # Llama-3-8B, the checkpoint
L8_TABLE = 128256 * 4096  # its input embedding table, which a decode pass does not multiply
L8_MATMUL = L8_PARAMS - L8_TABLE
KV_TOKEN = 2 * 32 * 8 * 128 * 2  # bf16 bytes per cached token


@pytest.fixture(scope="module")
def text():
    return chapter_texts(("03-inference.md",))["03-inference.md"]


def _main(t: str) -> str:
    """The argument: the rendered text before the takeaways, the questions and the reference."""
    return t.split("Key takeaways")[0]


def _batch(context: int = 2500) -> int:
    budget = 0.9 * H100_RUNTIME - ENGINE
    return math.floor((budget - 2 * L8_PARAMS) / (KV_TOKEN * context))


def _pass(batch: int) -> float:
    return (2 * L8_MATMUL + KV_TOKEN * 2500 * batch) / H100_BW


def test_f7_the_running_example_states_its_one_operating_point_up_front(text):
    batch = _batch()
    assert batch == 174
    assert f"The server batches as many conversations as its memory holds: {batch} of them," in text
    main = _main(text)
    assert "latency-tuned" not in text and "a batch of 64" not in text
    assert "64 sequences" not in main and "64 conversations" not in main


def test_f7_the_takeaways_carry_the_operating_point(text):
    batch = _batch()
    critical = 2 * H100_PEAK / H100_BW / 2  # R · s / 2 with s = 2 bytes
    share = round(100 * batch / critical)
    assert f"Our H100 holds {batch} conversations of 2,500 tokens, {share}% of the critical" in text


def test_f7_every_section_works_at_that_batch(text):
    batch, main = _batch(), _main(text)
    step = _pass(batch)
    # the batching, KV-cache, chunked-prefill, disaggregation and cost sections, and the napkin
    assert f"The matmuls of our {batch} sequences take" in main  # bk-c2: no "no context yet"
    # ninth pass (bk-c): the KV section's pass, in steps, kernel by kernel
    assert (
        f"Attention: {batch} caches of 2,500 tokens, {q(KV_TOKEN * 2500 * batch, 'B', sig=2)}"
        in main
    )
    assert f"The decode pass: {q(step, 's', sig=2)}," in main  # bk-c3: one name per pass
    assert f"Our batch brings {batch} tokens, so a piece of" in main  # bk-c4: tokens, not rows
    assert f"memory {batch} conversations" in main  # the napkin's first row
    # one rounding for the pass time: 22 ms, never 21.5 ms beside it
    assert q(step, "s", sig=2) == "22 ms" and "21.5 ms" not in text


def test_f7_the_mean_context_is_said_once_as_the_worst_cases_alternative(text):
    mean = _batch(2250)
    assert 190 <= mean <= 195
    assert text.count("2,250 tokens") == 1
    assert f"2,250 tokens, which would admit about {mean}." in text


def test_f7_the_exercise_on_chunking_runs_at_the_operating_point(text):
    batch = _batch()
    step = _pass(batch)
    # eighth review of 03-05 (H-1): only the weights' read hides a chunk's arithmetic
    free = math.floor(2 * L8_MATMUL / H100_BW * H100_PEAK / (2 * L8_MATMUL) - batch)
    assert step > 0
    assert f"Our engine runs its full batch of {batch} conversations at 2,500 tokens" in text
    assert f"so a chunk of up to {free:,} tokens is free" in text


def test_f9_the_stream_caveat_is_one_sentence_where_the_number_is(text):
    main = _main(text)
    # bk-c2 (fresh-eyes edit, item 6): one number for the batch-1 time, the floor; the STREAM
    # forecast and its caveat moved to the note
    assert "one vendor's best case" not in main and "one vendor's best case" in text
    # the other benchmarks and the recipe's two missing terms sit in the note, not the example
    # (the roofline figure's own sources line names RRZE for its L2 slope: look for the claim)
    assert "RRZE's read benchmark reaches" not in main and "RRZE's read benchmark reaches" in text
    assert "by which the recipe missed one measured batch-one token" not in main
    assert "by which the recipe missed one measured batch-one token" in text


def test_f9_the_fp8_cache_and_the_drafts_fine_print_leave_the_argument(text):
    main = _main(text)
    for detail in (
        "converts the cache back to bf16",  # the fp8 kernel paragraph: reference section
        "bolted onto a smaller model",  # the draft's acceptance caveat: its note
        "T5-XXL",  # published speed-ups: the note
        "one user gets",  # the batch-one draft: the note
        "Latent attention is the exception",  # decode attention's roofline: reference
    ):
        assert detail not in main, detail
        assert detail in text, detail


def test_the_main_line_has_one_worked_number_per_mechanism(text):
    main = _main(text)
    # one fleet ratio, one speculative speed-up at the running batch, one free-chunk count
    assert main.count("about one prefill GPU for every") == 1
    assert main.count("With k = 1 the speed-up is") == 1
    assert main.count("tokens rides free") == 1
