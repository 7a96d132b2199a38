"""Chapters 00 and 01 after the fresh-eyes edit (bk-a2) of reviews-out/pre-01.md.

One test per statement the report found wrong or misleading (its section 2) and per item of its
section 1 that the edit fixed; each fails on the text of 735c46d.  Figures are recomputed here
from published inputs (the H100 datasheet, the HF config, llama.cpp #6763, gpt-fast), not by the
physics functions the chapters call.
"""

from __future__ import annotations

import re

import pytest

from tests.courseware.book_text import chapter_texts, q
from tests.courseware.book_text import main_text as _main
from tests.courseware.book_text import takeaways as _takeaways

H100_BW, H100_PEAK_BF16 = 3.35e12, 989.4e12
PARAMS = 6_738_415_616  # Llama-2-7B
WEIGHTS = 2 * PARAMS  # bf16
KV_PER_SEQ = 2 * 32 * 4096 * 2 * 1024  # K and V, 32 layers, d_model 4096, 16-bit, 1,024 tokens
STREAM_DOT_H100 = 3.18e12  # Azure's STREAM dot, ND H100 v5
NODE, GRAPH, KERNELS = 580e-9, 15e-6, 388  # ocannl#488; 32 x 12 + 4 kernels
LLAMACPP, LLAMACPP_GRAPHS = 143.35, 163.83  # tokens/s, llama.cpp #6763


@pytest.fixture(scope="module")
def text():
    return chapter_texts(("00-intro.md", "01-gpus.md"))


def _notes(chapter: str) -> str:
    return chapter.split(" Sources ", 1)[1]


def test_batching_does_not_divide_the_cost_by_the_batch_at_1024_tokens(text):
    intro = _main(text["00-intro.md"])
    # A step of batch b reads the weights once and every conversation's cache: at b = 16 the
    # cost per token falls about 10x, not 16x, and the intensity never nears the ridge.
    step = (WEIGHTS + 16 * KV_PER_SEQ) / H100_BW
    saving = 16 * ((WEIGHTS + KV_PER_SEQ) / H100_BW) / step
    assert 9 < saving < 11
    assert 2 * 16 * PARAMS / (WEIGHTS + 16 * KV_PER_SEQ) < 30
    assert "divides the cost by nearly the batch size" not in intro
    assert "sequences on an H100" not in intro  # the ridge as a batch size has left the intro
    assert "falls steeply with the batch size, though not in proportion" in intro


def test_tensor_cores_also_run_fp64_and_double_per_sm_each_generation(text):
    gpus = _main(text["01-gpus.md"])
    # Second fresh-eyes edit (bk-a3): the format list is the note.
    assert "and, on data-centre parts from the A100 on, fp64" in _notes(text["01-gpus.md"])
    assert "Each completes 16-bit multiply-adds per clock" not in gpus
    assert "Each completes a fixed number of 16-bit multiply-adds per clock" in gpus
    # V100: 8 tensor cores x 64 FMA; A100: 4 x 256; H100: 4 x 512 (whitepapers): 2x per SM.
    assert 4 * 256 == 2 * (8 * 64) and 4 * 512 == 2 * (4 * 256)
    # Third fresh-eyes edit (bk-a4): the count per SM is its own sentence.
    assert "The V100 has eight tensor cores per SM, the A100 and H100 four larger ones" in gpus


def test_the_arithmetic_fills_the_token_not_the_tensor_cores(text):
    gpus = _main(text["01-gpus.md"])
    share = 2 * PARAMS / H100_PEAK_BF16 / 5.58e-3
    assert 0.002 < share < 0.003
    assert "idle for all but" not in gpus
    assert "The arithmetic, which dominates the datasheet, fills 0.2% of the token" in gpus


def test_the_power_cap_is_not_counted_as_the_h100s(text):
    notes = _notes(text["01-gpus.md"])
    assert "The forecast carries the whole error, the cap included." not in notes
    assert "although the H100 it is applied to is not capped" in notes


def test_the_launch_cost_is_printed_to_its_precision(text):
    gpus = text["01-gpus.md"]
    napkin = gpus.split("The napkin: one token through the chip", 1)[1].split("The check")[0]
    launches = KERNELS * NODE + GRAPH
    # Second fresh-eyes edit (bk-a3): two figures, so streaming + launches = recipe adds up;
    # the order of magnitude is said in [^launch].
    # Third fresh-eyes edit (bk-a4): streaming and launches are the recipe's "how".
    assert f"+ {q(launches, 's', sig=2)} launches (one CUDA graph" in napkin
    assert "the napkin's launch term, as the order of magnitude" in _notes(gpus)


def test_the_stream_row_is_slower_than_the_graph_as_the_prose_concludes(text):
    gpus = text["01-gpus.md"]
    main = _main(gpus)
    streaming = (WEIGHTS + KV_PER_SEQ) / STREAM_DOT_H100
    gap = (1 / LLAMACPP - 1 / LLAMACPP_GRAPHS) / KERNELS
    assert gap == pytest.approx(2.25e-6, rel=0.01)
    stream_row = streaming + KERNELS * (NODE + gap)
    graph_row = streaming + KERNELS * NODE + GRAPH
    assert stream_row > graph_row
    # Third fresh-eyes edit (bk-a4): the stream row is in the Reference's full table.
    assert f"{q(stream_row, 's')} memory-bound, with gaps one CUDA graph" in gpus
    assert f"{q(stream_row, 's')} memory-bound, with gaps" not in main
    assert "The stream row is the stream's best case" not in main


def test_one_value_per_quantity(text):
    intro, gpus = _main(text["00-intro.md"]), _main(text["01-gpus.md"])
    floor = (WEIGHTS + KV_PER_SEQ) / H100_BW
    # The H100's batch-one floor: weights and cache in both chapters, in ms per token.
    assert "249" not in gpus and q(floor, "s") in gpus
    assert q(1 / floor, "tokens/s") not in intro  # 239 tokens/s beside 4.18 ms: rate and inverse
    # The tensor cores' advantage: the table's ratio in the text, the per-clock 16x in a note.
    assert "16×" not in gpus and "about 15× sooner" in gpus
    # The memory per GPU of a split model: its difference from the budget is named.
    # Second fresh-eyes edit (bk-a3): one figure per sentence; the reserve is NCCL's (note).
    # Third fresh-eyes edit (bk-a4): the 2 GB for NCCL is named where the 71.3 GB appears.
    nccl = r"keeps 1\.9 GB more for communication buffers \(NCCL's and the engine's all-reduce\), "
    nccl += r"so it gives the model 71\.\d GB"
    assert re.search(nccl, intro)
    assert "which the level leaves out" not in _notes(text["00-intro.md"])
    # The forecast and gpt-fast's tokens in ms only in the argument.
    assert "179 tokens/s" not in intro and "179 tokens/s" not in gpus
    assert "tokens/s" not in gpus.split("The napkin: one token", 1)[1]


def test_the_running_example_is_bf16_throughout(text):
    for name in ("00-intro.md", "01-gpus.md"):
        main = _main(text[name])
        assert "Llama-2-7B in fp16" not in main and "16-bit weights" not in main, name
        assert "in fp16 that is" not in main, name
    intro = _main(text["00-intro.md"])
    assert "Llama-2-7B with its weights in bf16" in intro
    # Second fresh-eyes edit (bk-a3): the aside is a note.
    note = "fp16, the other 16-bit format, costs the same bytes and runs at the same peak"
    assert note not in intro and note in _notes(text["00-intro.md"])


def test_the_calibration_caveat_is_stated_once_per_chapter(text):
    intro, gpus = text["00-intro.md"], text["01-gpus.md"]
    # Second fresh-eyes edit (bk-a3): the caveat is 01's check's alone.
    assert "not a law" not in _main(intro) and "not a law" not in _takeaways(intro)
    assert "This is the one measurement the book calibrates on" not in intro
    assert "(gpt-fast, A100)" not in _takeaways(intro)
    # Third fresh-eyes edit (bk-a4): one hedge, "a first estimate to measure against".
    assert _main(gpus).count("a first estimate to measure against") == 1
    assert "gpt-fast's A100, forecasts" not in _takeaways(gpus)


def test_reference_material_left_the_argument(text):
    gpus = text["01-gpus.md"]
    main = _main(gpus)
    # Second fresh-eyes edit (bk-a3): the ladder table is reference.
    assert "level capacity bandwidth latency scope" not in main
    assert "level capacity bandwidth latency scope" in gpus
    assert "GPU datasheet STREAM dot fraction STREAM copy fraction" not in main
    assert "GPU datasheet STREAM dot fraction STREAM copy fraction" in gpus  # in Reference
    assert "measured on" not in main.split("how kernels are issued", 1)[1][:120]
    assert "the warp runs both paths one after the other" not in main
    assert "the warp runs both paths one after the other" in _notes(gpus)
    # Fewer figures per sentence: the CPUs' absolute figures and the load count are in notes/Q7.
    assert "reads its DDR5 at" not in main and "reads its DDR5 at" in _notes(gpus)
    assert "thousand loads in flight" not in main
    # The per-SM FLOPs per clock only in the peak derivation (its sentence and its formula).
    before, derivation = main.split("Where the peak figure comes from", 1)
    assert "4,096" not in before and derivation.split("Idea 2")[0].count("4,096") == 2


def test_headings_opener_takeaways_and_transitions(text):
    intro, gpus = text["00-intro.md"], text["01-gpus.md"]
    assert "The two numbers that govern speed" in intro
    assert "The two numbers that govern everything" not in intro
    assert "Compute outran bandwidth" in intro
    assert "the H200 and B200 lowered the ratio again" not in _takeaways(intro)
    assert "bulk copies" not in _takeaways(gpus) and "RRZE" not in _takeaways(gpus)
    assert (
        "The first two explain the datasheet" in gpus
        and "The other two price part of the gap between floor and forecast" in gpus
    )
    assert "yes latency hidden?" in gpus  # Idea 2 has its row in the napkin
    assert "also leave the package" in gpus and "sit on the same side of it" not in gpus
    assert "lower this floor" in intro
    assert "Measured on the same card, its bandwidth is about three times HBM's" in gpus


def test_the_napkins_value_comes_second(text):
    gpus = text["01-gpus.md"]
    # rv-3's K-11: two columns for a phone, the value first, the "how" in the quantity's cell
    assert "value quantity: how it is found 14 GB bytes per token: weights" in gpus
