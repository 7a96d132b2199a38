"""The seventh re-check (bank-rc7: /work/reviews/bank-recheck-7.md, ledger section S7): each test
names its finding and fails on the template or narrator as it was before the fix."""

from __future__ import annotations

import math
import re
import sys

from content.physics import (
    decode_floor,
    decode_weight_bytes,
    forward_flops_per_token,
    prefill_time,
    weights_bytes,
)
from quizzes.engine import render_part, render_prompt, render_solution

from .test_bank_review_findings import PATHS, template, variants
from .test_bank_third_review import option_feedback

SIXTY = range(60)


def flat(text):
    return " ".join(text.split())


def hint_texts(t, v, part_id):
    from quizzes.engine.render import render_scoped_hints

    return [text for part, text in render_scoped_hints(t, v, {part_id: 1}) if part == part_id]


def test_s7_1_prefill_versus_decode_counts_decode_as_chapter_03_does():
    # the key read the whole checkpoint for every one of `answer` steps: chapter 03's worked
    # example ("reading our prompt against writing our answer") charges (answer - 1) passes of
    # decode_weight_bytes, and that answer was graded wrong at 45 of 60 seeds
    t, vs = variants("prefill-versus-decode", SIXTY)
    llama3 = 0
    for v in vs:
        p = v.params
        m, acc, n, out = p["m"], p["acc"], p["prompt_tokens"], p["answer_tokens"]
        book_decode = (out - 1) * decode_floor(m, acc, "bf16")
        book_prefill = prefill_time(m, acc, "bf16", n)
        assert math.isclose(v.answers["decode"], book_decode, rel_tol=1e-12), v.seed
        assert math.isclose(v.answers["ratio"], book_decode / book_prefill, rel_tol=1e-12)
        prompt = flat(render_prompt(t, v))
        assert "as chapter 03 counts a decode pass" in prompt, v.seed
        assert f"the other {out - 1}" in prompt and "first token" in prompt, v.seed
        solution = flat(render_solution(t, v))
        assert f"needs {out - 1} steps" in solution, v.seed
        hint = flat(" ".join(hint_texts(t, v, "decode")))
        assert "every weight once" not in hint and "first token" in hint, v.seed
        llama3 += m.key == "llama-3-8b"
    assert llama3 >= 5
    # seed 3 (Llama-2-7B, 1,000 answer tokens): the chapter's recipe, 999 passes
    (v3,) = variants("prefill-versus-decode", [3])[1]
    m = v3.params["m"]
    assert v3.params["answer_tokens"] == 1000 and m.key == "llama-2-7b"
    shown = f"{decode_weight_bytes(m, 'bf16') / 1e9:.4g} GB"
    assert shown in flat(render_solution(template("prefill-versus-decode"), v3)), shown


def test_s7_1_the_ledger_names_prefill_versus_decode_among_the_pass_count_templates():
    from pathlib import Path

    ledger = Path(__file__).resolve().parents[2] / "docs" / "bank-review-ledger.md"
    section = ledger.read_text().split("### One decode count per template")[1]
    assert "`prefill-versus-decode`" in section


def test_s7_2_the_free_chunk_is_the_roofline_limit_and_the_solution_quotes_the_range():
    t, vs = variants("chunked-prefill-free-tokens", SIXTY)
    close_fits = 0
    for v in vs:
        p = v.params
        prompt = flat(render_part(t, v, "slows").prompt)
        assert "roofline's limit" in prompt and "overlapping" in prompt, v.seed
        solution = flat(render_solution(t, v))
        assert "do not notice" not in solution, v.seed
        assert "rides along for free" not in flat(option_feedback(t, v, "slows", "yes"))
        t_math = (p["chunk"] + p["b"]) * p["per_token"] / p["acc"].peak("bf16")
        close = max(p["t_mem"], t_math) < 2 * min(p["t_mem"], t_math)
        assert ("quote the range" in solution) == close, v.seed
        assert "with no overlap at all, memory time plus compute time" in solution, v.seed
        close_fits += close and p["chunk"] <= p["free"]
    # bank-rc7 counted 15 of the 36 "no" seeds with the two times within a factor of two
    assert close_fits >= 10


def test_s7_3_a_cut_bound_is_plain_text_in_the_solution_table():
    t, (v,) = variants("max-batch-under-latency", [3])
    solution = render_solution(t, v)
    assert "{,}" not in re.sub(r"\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]", "", solution, flags=re.S)
    assert "1,017.27" in solution


def test_s7_3_no_narrator_writes_a_tex_comma_into_plain_text(monkeypatch):
    """Every narrator the bank calls, at the seeds below: a title, a step's label or a step's
    result is shown as text, so a TeX thousands comma ("1{,}017.27") or command in one is printed
    literally (S6-3 for labels, S7-3 for results)."""
    explain_module = sys.modules["content.physics.explain"]
    seen = []
    for name, (func, narrator, unit) in list(explain_module._EXPLAINERS.items()):

        def spy(*args, _narrator=narrator, _name=name, **kwargs):
            title, steps = _narrator(*args, **kwargs)
            steps = list(steps)
            seen.append((_name, title, steps))
            return title, steps

        monkeypatch.setitem(explain_module._EXPLAINERS, name, (func, spy, unit))
    for slug, path in sorted(PATHS.items()):
        if "explain(" not in path.read_text():
            continue
        t, vs = variants(slug, [3, 17])
        for v in vs:
            render_solution(t, v)
    names = {name for name, _, _ in seen}
    assert {"max_batch_under_latency", "prefill_time", "min_gpus"} <= names, names
    for name, title, steps in seen:
        for text in (title, *(s.label for s in steps), *(s.result for s in steps)):
            assert "{,}" not in text and "\\" not in text, (name, text)


def test_s7_4_split_models_keep_back_nccls_buffers_not_more_memory():
    for slug in (
        "batch-doubling-what-breaks",
        "gpus-by-precision",
        "quant-method-choice",
        "kv-cache-fp8-conversations",
        "gqa-conversations-fit",
    ):
        t, vs = variants(slug, range(30))
        split = 0
        for v in vs:
            text = flat(render_prompt(t, v) + " " + render_solution(t, v))
            assert "more on each GPU of a split model" not in text, (slug, v.seed)
            if v.params["n"] > 1:
                split += 1
                assert "and NCCL's buffers on each GPU of a split model" in text, (slug, v.seed)
        assert split, slug


def test_s7_5_the_last_steps_hint_says_what_changed():
    t, vs = variants("decode-kv-reads-share", range(10))
    for v in vs:
        first, last = hint_texts(t, v, "first"), hint_texts(t, v, "last")
        assert first and last and first != last, v.seed
        p = v.params
        assert f"{p['start']:,} + {p['answer_len']:,}" in flat(last[0]), v.seed


def test_s7_6_the_roofline_step_names_the_batch_size():
    t, vs = variants("decode-step-on-the-roofline", range(10))
    for v in vs:
        solution = flat(render_solution(t, v))
        assert "about the batch:" not in solution, v.seed
        assert f"the batch size, {v.params['b']:,}, itself" in solution, v.seed


def test_s7_7_one_colon_in_the_coalescing_same_time_sentence():
    t, vs = variants("gpus-coalescing", range(40))
    same = 0
    for v in vs:
        solution = flat(render_solution(t, v))
        assert "the same time:" not in solution, v.seed
        same += "the same time, since each value" in solution
    assert same


def test_s7_10_the_last_fit_asks_about_a_format_the_weights_are_not_in():
    t, vs = variants("intro-weights-how-many-gpus", SIXTY)
    int4 = 0
    for v in vs:
        p = v.params
        prompt = flat(render_part(t, v, "int4_one").prompt)
        assert f"Stored in {p['dt']} instead" not in prompt, v.seed
        alt = "int8" if p["dt"] == "int4" else "int4"
        assert f"Stored in {alt} instead" in prompt, v.seed
        fits = v.answers["int4_one"] == ("fits",)
        assert fits == (weights_bytes(p["m"], alt) <= p["cap"]), v.seed
        int4 += p["dt"] == "int4"
    assert int4 >= 3


def test_s7_11_the_prefill_crossover_is_past_the_ridge_by_p_over_p_less_vd():
    t, vs = variants("prefill-on-the-roofline", range(40))
    llama3 = 0
    for v in vs:
        p = v.params
        m = p["m"]
        crossover = p["ridge"] * weights_bytes(m, "bf16") / forward_flops_per_token(m)
        solution = flat(render_solution(t, v))
        assert f"longer than about {round(crossover):,} tokens" in solution, v.seed
        llama3 += m.key == "llama-3-8b"
    assert llama3


def test_s7_12_fp16_weights_are_not_widened_to_bf16():
    t, vs = variants("decode-intensity-batch-one", range(40))
    fp16 = 0
    for v in vs:
        prompt = flat(render_prompt(t, v))
        if v.params["dt"] == "fp16":
            fp16 += 1
            assert "bf16 for the arithmetic" not in prompt and "16-bit rate" in prompt, v.seed
        else:
            assert "widened to bf16 for the arithmetic" in prompt, v.seed
    assert fp16
