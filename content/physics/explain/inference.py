"""Narrators for the LLM-inference functions (same parameter names as
``content.physics.inference``)."""

from __future__ import annotations

from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.dtypes import dtype
from content.physics.catalog.models import model
from content.physics.explain._steps import Step
from content.physics.explain._tex import frac, num, plain_num, q, result
from content.physics.explain.memory import min_gpus_steps
from content.physics.inference import (
    _compute_peak,
    _params,
    forward_flops_per_token,
    kv_cache_bytes_per_token,
    kv_cache_tokens,
)


def _weights_step(params, dt):
    fmt = dtype(dt)
    count = _params(params)
    who = f"{model(params).name} " if not isinstance(params, (int, float)) else ""
    value = count * fmt.bytes
    return value, Step(
        f"{who}weights in {fmt.name} ({fmt.bytes:g} {'byte' if fmt.bytes == 1 else 'bytes'} "
        "per parameter)",
        "W = N \\times b",
        f"{num(count)} \\times {q(fmt.bytes, 'B')}",
        result(value, "B"),
    )


def _kv_per_token_step(mdl, fmt, per_token):
    if mdl.kv_lora_rank is not None:
        return Step(
            "KV cache per token: one latent and one rotary key per layer, shared by every head",
            "c = L \\cdot (r_{kv} + d_{rope}) \\cdot b",
            f"{mdl.layers} \\times ({mdl.kv_lora_rank} + {mdl.qk_rope_head_dim}) \\times "
            f"{q(fmt.bytes, 'B')}",
            result(per_token, "B"),
        )
    return Step(
        "KV cache per token: keys and values, every layer and KV head",
        "c = 2 \\cdot L \\cdot h_{kv} \\cdot d_{head} \\cdot b",
        f"2 \\times {mdl.layers} \\times {mdl.n_kv_heads} \\times {mdl.head_dim} \\times "
        f"{q(fmt.bytes, 'B')}",
        result(per_token, "B"),
    )


def _kv_steps(m, tokens, dt, batch):
    mdl, fmt = model(m), dtype(dt)
    per_token = kv_cache_bytes_per_token(mdl, fmt)
    total = per_token * tokens * batch
    return total, [
        _kv_per_token_step(mdl, fmt, per_token),
        Step(
            "KV cache of the batch",
            "C = c \\times T \\times \\text{batch}",
            f"{q(per_token, 'B')} \\times {num(tokens)} \\times {num(batch)}",
            result(total, "B"),
        ),
    ]


def weights_bytes(params, dt):
    _, step = _weights_step(params, dt)
    return "Memory for the weights", [step]


def kv_cache_bytes(m, tokens, dt, batch, window):
    mdl = model(m)
    held = kv_cache_tokens(mdl, tokens) if window else tokens
    _, steps = _kv_steps(mdl, held, dt, batch)
    if held != tokens:
        steps.insert(
            0,
            Step(
                f"Tokens cached: the context, capped by the {plain_num(mdl.sliding_window)}-token "
                "window",
                "T = \\min(n, W)",
                f"\\min({num(tokens)}, {num(mdl.sliding_window)})",
                f"{plain_num(held)} tokens",
            ),
        )
    return f"KV cache of {mdl.name} in {dtype(dt).name}", steps


def time_per_token_floor(m, acc, dt):
    part = accelerator(acc)
    weights, step = _weights_step(m, dt)
    floor = weights / part.memory_bandwidth
    return f"Time-per-token floor of {model(m).name} on the {part.name}", [
        step,
        Step(
            "Every weight is read once per generated token",
            "t_{\\text{token}} \\ge \\frac{W}{B_{\\text{mem}}}",
            frac(q(weights, "B"), q(part.memory_bandwidth, "B/s")),
            result(floor, "s"),
        ),
    ]


def _memory_time_step(weights, kv, bandwidth, memory):
    if kv == 0:
        return Step(
            "Memory time: every weight is read once",
            "t_{\\text{memory}} = \\frac{W}{B_{\\text{mem}}}",
            frac(q(weights, "B"), q(bandwidth, "B/s")),
            result(memory, "s"),
        )
    return Step(
        "Memory time: weights plus KV cache read once",
        "t_{\\text{memory}} = \\frac{W + C}{B_{\\text{mem}}}",
        frac(f"{q(weights, 'B')} + {q(kv, 'B')}", q(bandwidth, "B/s")),
        result(memory, "s"),
    )


def _step_time(m, acc, dt, batch, context):
    part, fmt, mdl = accelerator(acc), dtype(dt), model(m)
    weights, step = _weights_step(mdl, fmt)
    kv, kv_steps = _kv_steps(mdl, context, fmt, batch)
    if kv == 0:
        kv_steps = []
    memory = (weights + kv) / part.memory_bandwidth
    flops = 2 * mdl.active_params * batch
    peak = _compute_peak(part, fmt)
    compute = flops / peak
    steps = [
        step,
        *kv_steps,
        _memory_time_step(weights, kv, part.memory_bandwidth, memory),
        Step(
            "FLOPs of the step: 2 per active parameter per sequence",
            "F = 2 \\cdot N_{\\text{active}} \\cdot \\text{batch}",
            f"2 \\times {num(mdl.active_params)} \\times {num(batch)}",
            result(flops, "FLOP"),
        ),
        Step(
            "Compute time at peak",
            "t_{\\text{compute}} = \\frac{F}{P}",
            frac(q(flops, "FLOP"), q(peak, "FLOP/s")),
            result(compute, "s"),
        ),
    ]
    bound = "memory-bound" if memory >= compute else "compute-bound"
    step_time = max(memory, compute)
    steps.append(
        Step(
            f"Step time: the slower of the two ({bound})",
            "t_{\\text{step}} = \\max(t_{\\text{memory}},\\ t_{\\text{compute}})",
            f"\\max\\left({q(memory, 's')},\\ {q(compute, 's')}\\right)",
            result(step_time, "s"),
        )
    )
    return step_time, steps


def decode_step_time(m, acc, dt, batch, context):
    _, steps = _step_time(m, acc, dt, batch, context)
    return f"One decode step of {model(m).name} on the {accelerator(acc).name}", steps


def decode_tokens_per_second(m, acc, dt, batch, context):
    step_time, steps = _step_time(m, acc, dt, batch, context)
    steps.append(
        Step(
            "Each step yields one token per sequence",
            "\\text{throughput} = \\frac{\\text{batch}}{t_{\\text{step}}}",
            frac(num(batch), q(step_time, "s")),
            result(batch / step_time, "tokens/s"),
        )
    )
    return f"Decode throughput of {model(m).name} on the {accelerator(acc).name}", steps


def prefill_time(m, acc, dt, prompt_tokens, batch):
    part, fmt, mdl = accelerator(acc), dtype(dt), model(m)
    weights, step = _weights_step(mdl, fmt)
    table = mdl.vocab_size * mdl.d_model
    flops = forward_flops_per_token(mdl) * prompt_tokens * batch
    peak = _compute_peak(part, fmt)
    compute, memory = flops / peak, weights / part.memory_bandwidth
    bound = "compute-bound" if compute >= memory else "memory-bound"
    return f"Prefill of {plain_num(prompt_tokens)} tokens of {mdl.name} on the {part.name}", [
        Step(
            f"FLOPs of the prompt: 2 per active parameter per token, the input embedding table "
            f"({plain_num(table)} parameters, looked up, not multiplied) left out",
            "F = 2 \\cdot (N_{\\text{active}} - V d) \\cdot n \\cdot \\text{batch}",
            f"2 \\times ({num(mdl.active_params)} - {num(table)}) \\times {num(prompt_tokens)}"
            f" \\times {num(batch)}",
            result(flops, "FLOP"),
        ),
        Step(
            "Compute time at peak",
            "t_{\\text{compute}} = \\frac{F}{P}",
            frac(q(flops, "FLOP"), q(peak, "FLOP/s")),
            result(compute, "s"),
        ),
        step,
        Step(
            "Memory time: the weights are read once",
            "t_{\\text{memory}} = \\frac{W}{B_{\\text{mem}}}",
            frac(q(weights, "B"), q(part.memory_bandwidth, "B/s")),
            result(memory, "s"),
        ),
        Step(
            f"Prefill time: the slower of the two ({bound})",
            "t = \\max(t_{\\text{compute}},\\ t_{\\text{memory}})",
            f"\\max\\left({q(compute, 's')},\\ {q(memory, 's')}\\right)",
            result(max(compute, memory), "s"),
        ),
    ]


def critical_batch_size(acc, dt, compute_dt=None):
    part, fmt = accelerator(acc), dtype(dt)
    arithmetic = dtype(compute_dt) if compute_dt is not None else fmt
    ridge = part.peak(arithmetic) / part.memory_bandwidth
    batch = ridge * fmt.bytes / 2
    where = fmt.name if arithmetic is fmt else f"{fmt.name} weights, {arithmetic.name} arithmetic"
    return f"Critical batch size of the {part.name} in {where}", [
        Step(
            f"Ridge point in {arithmetic.name}",
            "R = \\frac{P}{B_{\\text{mem}}}",
            frac(q(part.peak(arithmetic), "FLOP/s"), q(part.memory_bandwidth, "B/s")),
            result(ridge, "FLOP/B"),
        ),
        Step(
            "Decode intensity is 2·batch FLOP per b bytes of weight; set it equal to R",
            "\\text{batch}^{*} = \\frac{R \\cdot b}{2}",
            frac(f"{q(ridge, 'FLOP/B')} \\times {q(fmt.bytes, 'B')}", "2"),
            f"{plain_num(batch, 3)} sequences",
        ),
    ]


def gpus_needed(m, acc, dt, context, batch, kv_dt, level, utilization):
    part, mdl = accelerator(acc), model(m)
    weights, step = _weights_step(mdl, dt)
    kv, kv_steps = _kv_steps(mdl, context, kv_dt or dt, batch)
    total = weights + kv
    steps = [step]
    if kv:
        steps += kv_steps
        steps.append(
            Step(
                "Memory to hold",
                "M = W + C",
                f"{q(weights, 'B')} + {q(kv, 'B')}",
                result(total, "B"),
            )
        )
    steps += min_gpus_steps(total, part, level, utilization)
    return f"GPUs needed for {mdl.name} on the {part.name}", steps


def energy_per_token(m, acc, dt, batch, context):
    part = accelerator(acc)
    step_time, steps = _step_time(m, acc, dt, batch, context)
    energy = part.power_watts * step_time / batch
    steps.append(
        Step(
            "Energy per token: rated power over the step, shared by the batch",
            "E = \\frac{P_{\\text{power}} \\cdot t_{\\text{step}}}{\\text{batch}}",
            frac(f"{q(part.power_watts, 'W')} \\times {q(step_time, 's')}", num(batch)),
            result(energy, "J"),
        )
    )
    return f"Energy per token of {model(m).name} on the {part.name}", steps
