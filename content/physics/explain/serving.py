"""Narrators for the serving and expert-parallel functions (same parameter names as
``content.physics.serving`` and ``content.physics.interconnect``)."""

from __future__ import annotations

import math
from fractions import Fraction

from content.physics.catalog.accelerators import accelerator
from content.physics.catalog.dtypes import dtype
from content.physics.catalog.links import link
from content.physics.catalog.models import model
from content.physics.explain._steps import Step
from content.physics.explain._tex import frac, num, plain_num, q, result, tex_number_text
from content.physics.explain.memory import level_phrase, usable_steps
from content.physics.inference import _compute_peak, kv_cache_bytes, weights_bytes
from content.physics.precision import (
    decode_flops_per_token,
    decode_weight_bytes,
    embedding_params,
)
from content.physics.serving import max_batch_for_memory as _max_batch_for_memory
from content.physics.serving import max_batch_under_latency as _max_batch_under_latency


def _weights_and_kv(m, dt, context, kv_dt):
    mdl = model(m)
    weights = weights_bytes(mdl, dt)
    per_sequence = kv_cache_bytes(mdl, context, kv_dt or dt, 1)
    return (
        mdl,
        weights,
        per_sequence,
        [
            Step(
                f"{mdl.name} weights in {dtype(dt).name}",
                "W = N \\times b",
                f"{num(mdl.params)} \\times {q(dtype(dt).bytes, 'B')}",
                result(weights, "B"),
            ),
            Step(
                f"KV cache of one {plain_num(context)}-token sequence in {dtype(kv_dt or dt).name}",
                "c = 2 \\cdot L \\cdot h_{kv} \\cdot d_{head} \\cdot b \\cdot T",
                f"2 \\times {mdl.layers} \\times {mdl.n_kv_heads} \\times {mdl.head_dim} \\times "
                f"{q(dtype(kv_dt or dt).bytes, 'B')} \\times {num(context)}",
                result(per_sequence, "B"),
            ),
        ],
    )


def _whole_bytes(value: float) -> str:
    return f"{tex_number_text(f'{round(value):,}')}\\ \\text{{B}}"


def _whole_byte_floor(capacity: float, weights: float, per_sequence: float) -> str:
    """⌊(M − W) / c⌋ over the whole byte counts a prompt prints, then the quotient cut (not
    rounded) to two decimals, so the floor of the number shown is the count: four-figure sizes
    gave "312.0" beside a count of 311 (the fourth bank re-check's S4-3)."""
    spare, each = round(capacity) - round(weights), round(per_sequence)
    division = frac(f"{_whole_bytes(capacity)} - {_whole_bytes(weights)}", _whole_bytes(each))
    if spare < 0 or each < 1:
        return f"\\left\\lfloor {division} \\right\\rfloor"
    hundredths = spare * 100 // each
    quotient = tex_number_text(f"{hundredths // 100:,}.{hundredths % 100:02d}")
    return f"\\left\\lfloor {division} \\right\\rfloor = \\lfloor {quotient} \\rfloor"


def _cut(value: float) -> str:
    """A bound cut (not rounded) to two decimals, from the float's exact value, so the floor of
    the number shown is the floor of the bound: "⌊min(320, 971.3)⌋" stood beside a count of 319
    (ledger G-1) where the memory bound was 319.996.  Plain text ("1,017.27"), as a step's result
    is shown; ``_cut_tex`` is the same number inside TeX ("1{,}017.27", bank re-check 7's S7-3)."""
    hundredths = math.floor(Fraction(value) * 100)
    whole, part = divmod(abs(hundredths), 100)
    sign = "-" if hundredths < 0 else ""
    return f"{sign}{whole:,}.{part:02d}"


def _cut_tex(value: float) -> str:
    return tex_number_text(_cut(value))


def max_batch_for_memory(m, acc, dt, context, devices, kv_dt, level, utilization):
    part = accelerator(acc)
    mdl, weights, per_sequence, steps = _weights_and_kv(m, dt, context, kv_dt)
    per_device, usable = usable_steps(part, level, utilization, devices)
    capacity = per_device * devices
    batch = _max_batch_for_memory(
        mdl, part, dt, context, devices, kv_dt, level=level, utilization=utilization
    )
    steps[:0] = [
        *usable,
        Step(
            f"Usable memory of {devices} {part.noun(devices)}, "
            f"{level_phrase(level, utilization, devices)}",
            "M = n \\times M_{\\text{device}}",
            f"{num(devices)} \\times {q(per_device, 'B')}",
            result(capacity, "B"),
        ),
    ]
    steps.append(
        Step(
            "Sequences whose cache fits beside the weights (in whole bytes: sizes rounded to a "
            "few figures can move the count)",
            "\\text{batch} = \\left\\lfloor \\frac{M - W}{c} \\right\\rfloor",
            _whole_byte_floor(capacity, weights, per_sequence),
            f"{batch} sequences" if weights <= capacity else "0 (the weights alone do not fit)",
        )
    )
    where = f"the {part.name}" if devices == 1 else f"{devices} {part.name} {part.noun(devices)}"
    return f"Largest batch of {mdl.name} that fits on {where}", steps


def max_batch_under_latency(m, acc, dt, context, target_step_s, devices, kv_dt):
    part = accelerator(acc)
    mdl, checkpoint, per_sequence, steps = _weights_and_kv(m, dt, context, kv_dt)
    weights = decode_weight_bytes(mdl, dtype(dt))
    bandwidth = part.memory_bandwidth * devices
    peak = _compute_peak(part, dtype(dt)) * devices
    per_token = decode_flops_per_token(mdl)
    by_memory = (target_step_s * bandwidth - weights) / per_sequence
    by_compute = target_step_s * peak / per_token
    batch = _max_batch_under_latency(mdl, part, dt, context, target_step_s, devices, kv_dt)
    steps[1:1] = [
        Step(
            f"Weights a decode step reads: all but the input embedding table "
            f"({plain_num(embedding_params(mdl))} parameters; a step looks up one row per token)",
            "W_{\\text{read}} = W - T_{\\text{in}}",
            f"{q(checkpoint, 'B')} - {q(checkpoint - weights, 'B')}",
            result(weights, "B"),
        )
    ]
    steps += [
        Step(
            "Memory bound: the step reads those weights plus every sequence's cache",
            "\\text{batch} \\le \\frac{t \\cdot B_{\\text{mem}} - W_{\\text{read}}}{c}",
            frac(
                f"{q(target_step_s, 's')} \\times {q(bandwidth, 'B/s')} - {q(weights, 'B')}",
                q(per_sequence, "B"),
            ),
            _cut(by_memory),
        ),
        Step(
            "Compute bound: 2 FLOP per parameter multiplied (the table is not) per sequence",
            "\\text{batch} \\le \\frac{t \\cdot P}{2 (N_{\\text{active}} - V d)}",
            frac(f"{q(target_step_s, 's')} \\times {q(peak, 'FLOP/s')}", q(per_token, "FLOP")),
            _cut(by_compute),
        ),
        Step(
            "Largest whole batch under both bounds",
            "\\lfloor \\min(\\cdot, \\cdot) \\rfloor",
            f"\\lfloor \\min({_cut_tex(by_memory)}, {_cut_tex(by_compute)}) \\rfloor",
            f"{batch} sequences",
        ),
    ]
    return f"Largest batch of {mdl.name} on the {part.name} within {result(target_step_s, 's')}", (
        steps
    )


def speculative_expected_tokens(acceptance_rate, draft_tokens):
    a, k = acceptance_rate, draft_tokens
    value = float(k + 1) if a == 1 else (1 - a ** (k + 1)) / (1 - a)
    return "Tokens per target pass with speculative decoding", [
        Step(
            "Geometric series: the first rejection ends the run, the target adds one token",
            "E = \\frac{1 - a^{k+1}}{1 - a}",
            frac(f"1 - {num(a)}^{{{k + 1}}}", f"1 - {num(a)}") if a != 1 else f"{k} + 1",
            f"{plain_num(value, 3)} tokens",
        )
    ]


def speculative_speedup(acceptance_rate, draft_tokens, draft_cost_ratio):
    title, steps = speculative_expected_tokens(acceptance_rate, draft_tokens)
    a, k, c = acceptance_rate, draft_tokens, draft_cost_ratio
    expected = float(k + 1) if a == 1 else (1 - a ** (k + 1)) / (1 - a)
    cost = k * c + 1
    steps += [
        Step(
            "Cost of one round in target steps: k draft steps plus one verification",
            "C = k \\cdot c + 1",
            f"{k} \\times {num(c)} + 1",
            num(cost, 3),
        ),
        Step(
            "Speed-up",
            "S = E / C",
            frac(num(expected), num(cost)),
            f"{num(expected / cost, 3)}×",
        ),
    ]
    return "Speed-up of speculative decoding", steps


def pipeline_bubble_fraction(stages, microbatches):
    p, m = stages, microbatches
    value = (p - 1) / (m + p - 1)
    return f"Pipeline bubble with {p} stages and {m} microbatches", [
        Step(
            "Idle slots filling and draining the pipeline over all slots",
            "\\beta = \\frac{p - 1}{m + p - 1}",
            frac(f"{p} - 1", f"{m} + {p} - 1"),
            f"{num(value, 3)} ({num(100 * value, 3)}% idle)",
        )
    ]


def moe_alltoall_bytes(tokens, d_model, top_k, dt, devices):
    fmt = dtype(dt)
    copies = tokens * top_k * d_model * fmt.bytes
    value = copies * (devices - 1) / devices
    return "Bytes one device sends in an expert-parallel dispatch", [
        Step(
            "Activations routed: every token to each of its top-k experts",
            "A = T \\cdot k \\cdot d \\cdot b",
            f"{num(tokens)} \\times {num(top_k)} \\times {num(d_model)} \\times "
            f"{q(fmt.bytes, 'B')}",
            result(copies, "B"),
        ),
        Step(
            "Share whose expert lives on another device",
            "D = A \\cdot \\frac{n - 1}{n}",
            f"{q(copies, 'B')} \\times {frac(f'{devices} - 1', str(devices))}",
            result(value, "B"),
        ),
    ]


def alltoall_time(bytes_per_device, devices, ln):
    wire = link(ln)
    value = 0.0 if devices == 1 else bytes_per_device / wire.bandwidth
    return f"All-to-all over {devices} devices on {wire.name}", [
        Step(
            "Every device sends its share at once at the per-direction link rate",
            "t = \\frac{D}{B_{\\text{link}}}",
            frac(q(bytes_per_device, "B"), q(wire.bandwidth, "B/s"))
            if devices > 1
            else "\\text{one device: nothing to send}",
            result(value, "s"),
        )
    ]
