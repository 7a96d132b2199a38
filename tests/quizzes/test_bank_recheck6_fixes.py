"""The sixth re-check (bank-rc6: /work/reviews/bank-recheck-6.md, ledger section S6): each test
names its finding and fails on the template or drawer as it was before the fix."""

from __future__ import annotations

import math
import re

import pytest

from content.physics import (
    decode_flops_per_token,
    decode_weight_bytes,
    kv_cache_bytes,
)
from quizzes.engine import render_part, render_prompt, render_solution
from quizzes.engine.figures import draw_figure
from quizzes.presenters.figures import LEFT, RIGHT, figure_html
from tests.courseware.test_roofline_chart import _gap_to_line, _question_charts

from .test_bank_review_findings import variants
from .test_bank_third_review import option_diagnosis

SIXTY = range(60)
PREFIX = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def flat(text):
    return " ".join(text.split())


def test_s6_2_a_batched_decode_step_is_the_books_decode_pass():
    # the key counted the whole checkpoint and 2 x every parameter: 6.5% long at the
    # compute-bound Llama-3-8B seeds (5, 12, 13, ...), against the part's 2%
    t, vs = variants("batched-decode-throughput", SIXTY)
    llama3_compute = 0
    for v in vs:
        p = v.params
        m, acc, batch, context = p["m"], p["acc"], p["batch"], p["context"]
        read = decode_weight_bytes(m, "bf16") + kv_cache_bytes(m, context, "bf16", batch)
        flops = decode_flops_per_token(m) * batch
        book = max(read / acc.memory_bandwidth, flops / acc.peak("bf16"))
        assert math.isclose(v.answers["step"], book, rel_tol=1e-9), v.seed
        # the student reads the pass's bytes and FLOPs off the prompt as printed
        text = flat(render_prompt(t, v))
        assert "count 2 FLOPs per parameter per token" not in text, v.seed
        assert "input embedding table" in text and "chapter 03" in text, v.seed
        shown = [int(x.replace(",", "")) for x in re.findall(r"\(([\d,]+) B, ", text)]
        assert round(decode_weight_bytes(m, "bf16")) in shown, (v.seed, shown)
        assert f"{round(decode_flops_per_token(m)):,} FLOP" in text, v.seed
        llama3_compute += m.key == "llama-3-8b" and p["flop_t"] > p["mem_t"]
    assert llama3_compute >= 3


def test_s6_2_the_two_choice_templates_count_the_same_pass():
    t, vs = variants("decode-upgrade-choice", range(20))
    for v in vs:
        p = v.params
        read = decode_weight_bytes(p["m"], p["dt"]) + p["batch"] * p["per_seq"]
        assert math.isclose(p["step"], read / p["acc"].memory_bandwidth, rel_tol=1e-12), v.seed
        assert "input embedding table" in flat(render_prompt(t, v)), v.seed
        assert "input embedding table" in flat(render_solution(t, v)), v.seed
    t, vs = variants("tp-degree-choice", range(20))
    for v in vs:
        p = v.params
        floor = decode_weight_bytes(p["m"], "bf16") / 4 / p["acc"].memory_bandwidth
        assert math.isclose(p["t4"] - 2 * p["m"].layers * 2 * 3 * p["alpha"], floor), v.seed
        assert "input embedding table" in flat(render_prompt(t, v)), v.seed


def test_s6_6_the_int4_pick_records_no_bytes_slip():
    # int4 fits whenever it is wrong: the slip is not taking the most precise format that fits,
    # which no code of the catalogue names, so the pick records none
    from .test_bank_review_findings import template

    assert option_diagnosis(template("gpus-by-precision"), "format", "int4") is None


def _tick_value(text: str) -> float:
    number, _, unit = text.partition(" ")
    return float(number.replace(",", "")) * PREFIX[unit[:-1]] if unit else float(number)


def test_s6_5_bar_ticks_read_their_values_and_gridlines_miss_the_labels():
    t, vs = variants("paged-kv-reservation", [0, 3, 8, 17, 20])
    for v in vs:
        html = figure_html(draw_figure(t, v))
        ticks = re.findall(r'<text class="tick" x="([\d.]+)"[^>]*>([^<]+)</text>', html)
        values = [_tick_value(text) for _, text in ticks]
        assert len(ticks) == 5 and values[0] == 0, ticks
        for (x, text), value in zip(ticks, values, strict=True):
            # seed 3 read "1.3 GB" at 1.25 GB
            at = LEFT + (RIGHT - LEFT) * value / values[-1]
            assert abs(float(x) - at) < 0.06, (v.seed, text)
        labels = [float(y) for y in re.findall(r'<text class="label" x="6" y="(-?[\d.]+)"', html)]
        grid = re.findall(r'<line class="grid" x1="[\d.]+" x2="[\d.]+" y1="(\d+)" y2="(\d+)"', html)
        assert labels and grid
        for y1, y2 in grid:
            for y in labels:  # a 13-unit label's glyphs run from y - 11 to y + 3
                assert int(y2) < y - 11 or int(y1) > y + 3, (v.seed, y1, y2, y)


def test_s6_4_the_question_chart_labels_keep_off_the_ridge_line():
    # seeds 3 (H100, n=4096) and 8 (B200, n=512): "matmul" sat on the dashed ridge line
    from courseware.charts import _CHAR_WIDTH, _LABEL_HEIGHT

    charts = _question_charts()
    assert ("H100 SXM", 4096) in charts or any(k[1] == 4096 for k in charts)
    for key, ctx in charts.items():
        ridge = ctx["ridge"]
        line = [(ridge["x"], ridge["y"]), (ridge["x"], ctx["plot"]["bottom"])]
        for m in ctx["marks"]:
            width = len(m["label"]) * _CHAR_WIDTH
            x0 = {"start": m["tx"], "end": m["tx"] - width, "middle": m["tx"] - width / 2}
            box = (x0[m["anchor"]], m["ty"] - _LABEL_HEIGHT + 3, width, _LABEL_HEIGHT)
            assert _gap_to_line(box, line) >= 2, (key, m["label"])


def test_s6_7_narrow_formats_say_every_weight_is_counted_in_the_format():
    # the keys count P x bits/8; the catalog's checkpoints keep the V·d tables in 16 bits
    t, vs = variants("block-format-size", range(5))
    for v in vs:
        assert "Count every weight in the format" in flat(render_part(t, v, "w").prompt), v.seed
    t, vs = variants("moe-memory-and-speed", range(40))
    narrow = [v for v in vs if v.params["dt"] != "bf16"]
    assert narrow
    for v in narrow:
        assert "every weight counted at that width" in flat(render_prompt(t, v)), v.seed


def test_s6_8_sizes_beside_four_figure_ones_carry_four_figures():
    # "int8 | 69 GB" in the table, "73.3 GB − 26 GB" where the prompt says 26.03 GB
    from content.physics import format_quantity, weights_bytes

    t, vs = variants("gpus-by-precision", range(10))
    for v in vs:
        text = render_solution(t, v)
        for dt in ("fp32", "bf16", "int8", "int4"):
            size = format_quantity(weights_bytes(v.params["m"], dt), "B", sig=4)
            assert f"| {dt} | {size} |" in text, (v.seed, dt, size)
    t, vs = variants("decode-upgrade-choice", range(10))
    for v in vs:
        text = flat(render_solution(t, v))
        assert f"− {format_quantity(v.params['w'], 'B', sig=4)} leaves" in text, v.seed


def _size(text: str) -> float:
    number, _, unit = text.partition(" ")
    return float(number.replace(",", "")) * PREFIX[unit[:-1]]


def _four(value, unit="B"):
    from content.physics import format_quantity

    return format_quantity(value, unit, sig=4)


def _paged_sizes(t, v):
    from content.physics import weights_bytes

    assert f"({_four(weights_bytes(v.params['m'], 'bf16'))})" in flat(render_prompt(t, v))
    solution = flat(render_solution(t, v))
    assert f"{_four(v.params['free'])};" in solution
    assert "rounded to three figures" not in solution  # its sizes now have four


def _kv_fp8_sizes(t, v):
    from content.physics import weights_bytes

    p, text = v.params, flat(render_prompt(t, v))
    assert f"bf16 weights, {_four(weights_bytes(p['m'], 'bf16'))};" in text
    assert f"({_four(p['room'])}) in all" in text


def _chunked_sizes(t, v):
    p, text = v.params, flat(render_prompt(t, v))
    assert f", {_four(p['per_token'], 'FLOP')} (the input" in text
    assert f"{_four(p['t_mem'] * p['acc'].memory_bandwidth)}, in" in text


def _max_batch_sizes(t, v):
    from content.physics import usable_memory_bytes

    p, text = v.params, flat(render_solution(t, v))
    cap = usable_memory_bytes(p["acc"])
    assert f"**Capacity.** {_four(cap)} − {_four(p['w'])} holds" in text
    assert f"take {_four(p['w_read'])} of that" in text


@pytest.mark.parametrize(
    ("slug", "check"),
    [
        ("paged-kv-reservation", _paged_sizes),
        ("kv-cache-fp8-conversations", _kv_fp8_sizes),
        ("chunked-prefill-free-tokens", _chunked_sizes),
        ("max-batch-under-latency", _max_batch_sizes),
    ],
)
def test_s6_8_the_rest_print_sizes_to_four_figures(slug, check):
    # "(26 GB)" beside "26,031,728,640 B", "73.3 GB − 26 GB", "15 GFLOP" beside 7.5 billion
    t, vs = variants(slug, range(10))
    for v in vs:
        check(t, v)


def test_s6_8_decode_upgrade_states_the_batch_its_printed_sizes_give():
    # seed 33: (17.9 GB − 7.504 GB) / 67.1 MB = 154.9, and the prompt said "the server runs 155"
    t, vs = variants("decode-upgrade-choice", SIXTY)
    size = r"([\d.,]+ [kMGT]?B)"
    for v in vs:
        text = flat(render_prompt(t, v))
        cap = _size(re.search(rf"may use {size} of its memory", text).group(1))
        w = _size(re.search(rf"its weights take {size}\.", text).group(1))
        per_seq = _size(re.search(rf"tokens of context, {size} of cache", text).group(1))
        batch = int(re.search(r"the server runs (\d+) conversations", text).group(1))
        assert batch == v.params["batch"], v.seed
        assert math.floor((cap - w) / per_seq) == batch, (v.seed, cap, w, per_seq, batch)


@pytest.mark.parametrize("slug", ["intro-weights-how-many-gpus", "block-format-size"])
def test_s6_9_counts_past_one_server_round_up_to_whole_servers(slug):
    # "divides its attention heads (usually a power of two) ... here 16": sixteen GPUs are two
    # 8-GPU servers (tensor parallelism within each, pipeline parallelism between them), not a
    # tensor-parallel degree of 16 (Llama-2-70B has 8 KV heads)
    from content.physics import min_gpus, weights_bytes

    t, vs = variants(slug, SIXTY)
    past_one_server = 0
    for v in vs:
        p = v.params
        text = flat(render_solution(t, v))
        assert "usually a power of two" not in text, v.seed
        counts = [min_gpus(p["w"], p["acc"])]
        if slug == "block-format-size":
            counts.append(min_gpus(weights_bytes(p["m"], "bf16"), p["acc"]))
        rounded = [2 ** math.ceil(math.log2(g)) if g <= 8 else 8 * math.ceil(g / 8) for g in counts]
        if rounded != counts:
            assert "whole 8-GPU servers beyond that (pipeline parallelism" in text, v.seed
            assert "here to " + " and ".join(f"{r:,}" for r in rounded) in text, v.seed
            past_one_server += max(counts) > 8
        else:
            assert "round up" not in text and "round each up" not in text, v.seed
    assert past_one_server >= 3, slug
