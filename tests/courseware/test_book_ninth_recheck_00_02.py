"""The independent re-review of chapters 00-02 (rv-3, docs/reviews/book-00-02-ninth-recheck.md):
each finding's fix, checked on the rendered text against figures recomputed from published
inputs."""

from __future__ import annotations

import re

from content.physics import decode_forecast_time, decode_step_time
from courseware.book_rooflines import block_roofline_html
from courseware.rendering import render_chapter_text
from tests.courseware.book_text import BOOK, chapter_text, main_text, q

INTRO = "00-intro.md"
GPUS = "01-gpus.md"
ROOFLINE = "02-roofline.md"


def _html(name: str) -> str:
    return render_chapter_text((BOOK / name).read_text(), source=name).html


def test_k11_the_gpu_napkin_is_two_columns_with_short_values():
    html = _html(GPUS)
    table = html.split('id="napkin"', 1)[1].split("<table", 1)[1].split("</table>", 1)[0]
    header = table.split("</thead>", 1)[0]
    # the value first (a short cell that does not wrap), the "how" last (the column that wraps)
    assert re.findall(r"<th>(.*?)</th>", header) == ["value", "quantity: how it is found"]
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1], re.S)
    assert len(rows) == 8
    for row in rows:
        cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td.*?</td>", row, re.S)]
        assert len(cells) == 2
        assert len(cells[0]) <= 12, cells  # a value fits a phone's narrow column
    text = chapter_text(GPUS)
    assert "$4.96 cost per million tokens: $3.20 an hour ÷ tokens per hour, at the forecast" in text


def test_k10_the_napkin_says_the_carried_correction_is_slightly_pessimistic():
    napkin = chapter_text(GPUS).split("The napkin: one token", 1)[1].split("The check.", 1)[0]
    assert "(1 + its error on gpt-fast's A100, 20%), slightly pessimistic for an uncapped card" in (
        napkin
    )


def test_k17_the_block_chart_draws_prefill_attention_with_both_readings():
    figure = str(block_roofline_html())
    wide = figure.split('class="chart-narrow"', 1)[0]
    assert wide.count('class="point both-bound') == 1
    assert "memory (datasheet); compute (achieved)" in figure
    legend = figure.split('class="roofline-legend"', 1)[1].split("</p>", 1)[0]
    assert "memory-bound on the datasheet, compute-bound in practice" in legend
    main = main_text(chapter_text(ROOFLINE))
    assert "where the chart draws it memory-bound" not in main
    assert "just left of the datasheet ridge, so memory-bound at the datasheet peaks" in main


def test_k1_the_floor_is_not_claimed_as_strict():
    text = main_text(chapter_text(INTRO))
    assert "cannot take much less time than those bytes over the bandwidth" in text


def test_k2_the_split_reserve_is_the_communication_libraries():
    text = main_text(chapter_text(INTRO))
    assert "1.9 GB more for communication buffers (NCCL's and the engine's all-reduce)" in text


def test_k3_the_intro_matmul_is_drawn_at_its_best_case():
    assert "large matrix product, which at best keeps the tensor cores busy" in chapter_text(INTRO)


def test_k4_k5_the_intro_names_one_memory_figure_and_the_forecast_as_the_floor_raised():
    text = main_text(chapter_text(INTRO))
    assert "default of 0.9" not in text
    floor = decode_step_time("llama-2-7b", "H100", "bf16", 1, 1024)
    forecast = decode_forecast_time("llama-2-7b", "H100", "bf16", 1, 1024)
    rise = f"{round(100 * (forecast / floor - 1))}%"
    assert rise == "33%"
    assert f"for the running example, the floor raised by {rise}." in text
    assert "corrects by the 20%" not in text


def test_k6_the_floor_cost_is_not_a_bound_on_every_server():
    text = main_text(chapter_text(INTRO))
    assert "no H100 server" not in text
    assert "with one conversation in bf16, even the floor costs $3.72 per million" in text


def test_k7_the_exercise_says_why_it_leaves_the_idle_time_out():
    answer = chapter_text(GPUS).split("24 × 12", 1)[1]
    assert "the stream's idle time the worked example adds is left out, as the CPU dominates" in (
        answer
    )


def test_k8_the_ladder_names_where_l2_was_measured():
    text = chapter_text(GPUS)
    assert "10 TB/s (measured on the H200, same die)" in text


def test_k9_major_engines_not_every_engine():
    text = main_text(chapter_text(GPUS))
    assert "every serving engine" not in text
    assert "the major serving engines (vLLM, SGLang, TensorRT-LLM) capture" in text


def test_k12_one_number_for_the_tensor_core_ratio_in_the_answer():
    answer = chapter_text(GPUS).split("roughly how much faster is a large bf16", 1)[1]
    answer = answer.split("A kernel on an H100 runs blocks", 1)[0]
    assert "About 15×" in answer and "14.8×" not in answer and "16×" not in answer


def test_k14_the_gpu_note_does_not_promise_a_range():
    text = chapter_text(GPUS)
    assert "napkin gives a range" not in text
    assert "its note brackets the error on a batched A100" in text


def test_k15_the_cpu_ridge_is_bf16_like_chapter_1():
    text = chapter_text(ROOFLINE)
    # 14.7 TFLOP/s bf16 (AVX-512 BF16) over 460.8 GB/s: 31.9 FLOP/byte; matmul side 3 x 31.9
    ridge = 14.7e12 / 460.8e9
    assert f"EPYC 9654 {q(460.8e9, 'B/s')} {q(ridge, 'FLOP/B')} not catalogued" in text
    assert "EPYC 9654 (fp32)" not in text


def test_k16_the_llama3_note_multiplies_no_embedding():
    text = chapter_text(ROOFLINE)
    assert "compute-bound at the datasheet peaks" in text
    assert "(the embedding lookup does none)" in text
