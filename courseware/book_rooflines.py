"""Each chapter's running example on the roofline, computed from ``content.physics`` when the
page renders.

``intro_roofline_html()``: chapter 00's token (one decode pass of Llama-2-7B at batch 1) beside
a large matrix product, on the H100's bf16 roofline.

``block_roofline_html()``: chapter 02's decoder block of Llama-2-7B at 1,024 tokens of context,
its three regimes as the table of "One block on the roofline" counts them (decode at batch 1
and 64, prefill of 1,024 tokens; projections and attention apart).

``precision_roofline_html()``: chapter 04's Llama-3-70B decode at batch 1 and 256 with bf16,
fp8 and 4-bit (GPTQ) weights on the H100: fp8 multiplies on the fp8 tensor cores, bf16 and the
dequantized 4-bit weights on the bf16 ones (a lower ceiling on the same chart), so the reader
sees 4-bit weights reach the bf16 roof at a batch where fp8 is still on the slope.

The chart and its table are the roofline chart's own (``courseware.charts``); each figure names
its sources under its caption.
"""

from __future__ import annotations

import dataclasses

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from content.physics import (
    accelerator,
    achievable_bandwidth,
    arithmetic_intensity,
    attainable_flops,
    causal_attention_flops,
    decode_attention_intensity,
    decode_weight_bytes,
    dtype,
    embedding_params,
    flash_attention_hbm_bytes,
    format_quantity,
    layer_params,
    matmul_bytes,
    matmul_flops,
    measurement,
    memory_hierarchy,
    model,
    model_flops_per_token,
    ridge_point,
    source,
    weights_bytes,
)
from courseware.book_figures import figure_sources, sources_html
from courseware.charts import (
    Roofline,
    RooflinePoint,
    chart_figure_html,
    roofline,
)

ACCELERATOR = "h100-sxm"
INTRO_MODEL = "llama-2-7b"
MATMUL_SIDE = 4096
BLOCK_CONTEXT = 1024
BLOCK_BATCH = 64
PRECISION_MODEL = "llama-3-70b"
PRECISION_BATCHES = (1, 256)
# (label, weight format, arithmetic format): weight-only 4-bit multiplies in bf16.
PRECISION_FORMATS = (
    ("bf16", "bf16", "bf16"),
    ("fp8", "fp8", "fp8"),
    ("4-bit GPTQ", "gptq-int4-g128", "bf16"),
)


def _part_sources(*formats: str, l2: bool = True) -> list:
    """The H100's peaks in ``formats`` and its bandwidth, and the measured L2 bandwidth that
    ``courseware.charts.roofline`` draws as a dashed slope (``l2=False`` for a chart without)."""
    part = accelerator(ACCELERATOR)
    keys = [part.source_key(f"peak_flops.{dtype(f).name}") for f in formats]
    keys.append(part.source_key("memory_bandwidth"))
    found = [source(k) for k in dict.fromkeys(keys) if k]
    level = memory_hierarchy(part)[2]
    return found + list(level.citations()) if l2 and level.bandwidth else found


def _figure(css: str, figure: SafeString, caption: str, found: list) -> SafeString:
    return render_to_string(
        "courseware/_book_figure.html",
        {"class": css, "figure": figure, "caption": caption, "sources": sources_html(found)},
    )


def intro_points() -> list[tuple[str, float, None]]:
    """One token of the introduction's model, and a square matmul of side 4,096."""
    token = arithmetic_intensity(
        model_flops_per_token(INTRO_MODEL), weights_bytes(INTRO_MODEL, "bf16")
    )
    n = MATMUL_SIDE
    product = arithmetic_intensity(matmul_flops(n, n, n), matmul_bytes(n, n, n, "bf16"))
    return [
        (f"one token of {model(INTRO_MODEL).name}", token, None),
        (f"{n:,} × {n:,} matrix product", product, None),
    ]


def intro_chart() -> Roofline:
    """The H100's bf16 roof and HBM slope with the two points, nothing else: the fp32 lanes'
    ceiling and the L2 slope are chapter 02's, which explains them (fifth review, A00-4)."""
    chart = roofline(ACCELERATOR, "bf16", intro_points(), examples=False)
    return dataclasses.replace(chart, ceilings=(), slopes=())


def intro_roofline_html() -> SafeString:
    figure = chart_figure_html(intro_chart())
    ridge = ridge_point(ACCELERATOR, "bf16")
    return _figure(
        "intro-roofline",
        figure,
        f"Our token on the H100's roofline in bf16. It does about one FLOP per byte it reads, "
        f"far left of the ridge at {ridge:,.0f}, so the memory's slope sets its speed; a large "
        f"matrix product sits past the ridge, under the flat roof of the tensor cores.",
        figure_sources(*_part_sources("bf16", l2=False), model(INTRO_MODEL)),
    )


def block_points() -> list[tuple[str, float, None]]:
    """The block's kernels as chapter 02's table counts them: FLOPs over HBM bytes per layer."""
    m, ctx, b = INTRO_MODEL, BLOCK_CONTEXT, BLOCK_BATCH
    layers, heads, head_dim = model(m).layers, model(m).n_heads, model(m).head_dim
    projections = 2 * layer_params(m)  # FLOPs per token, and bf16 bytes of the layer's weights
    # Llama-2-7B is a causal decoder: its prefill kernels skip the masked half of the pairs.
    prefill_attention = (
        causal_attention_flops(m, ctx, ctx)
        / layers
        / flash_attention_hbm_bytes(ctx, head_dim, "bf16", heads=heads, block_rows=ctx)
    )
    # Decode attention and the batch-1 projections both sit at about one FLOP per byte: one
    # point, or their labels would overprint each other.
    decode_attention = decode_attention_intensity(m, "bf16")
    if abs(decode_attention - 1) > 0.05:
        raise ValueError(f"decode attention at {decode_attention} FLOP/byte: label it apart")
    points = [
        ("decode: projections at batch 1, attention at any batch", projections / projections),
        (f"decode, batch {b}: projections", b * projections / projections),
        # Short labels: the chart puts each beside its own point, not beside a neighbour's
        # (sixth review, C02-6); the caption and the chapter's table say what each counts.
        (f"prefill {ctx:,}: projections", ctx * projections / projections),
        (f"prefill {ctx:,}: attention", prefill_attention),
    ]
    return [(label, intensity, None) for label, intensity in points]


def block_chart() -> Roofline:
    """The block's points on the H100's bf16 datasheet roofline, nothing else: the fp32 lanes'
    ceiling and the L2 slope belong to the live chart's note (pre-02c, 9). Each point is drawn
    where the datasheet puts it, so prefill attention, just left of the ridge, sits on the slope;
    its table row gives both readings, memory-bound at the datasheet peaks and compute-bound at
    achieved rates, as the text concludes (ninth review, I-14)."""
    chart = roofline(ACCELERATOR, "bf16", block_points(), examples=False)
    achieved_compute = prefill_attention_ratio() > 1
    points = tuple(
        dataclasses.replace(p, bound="memory (datasheet); compute (achieved)")
        if p.memory_bound and achieved_compute and p.label.startswith("prefill")
        else p
        for p in chart.points
    )
    return dataclasses.replace(chart, points=points, ceilings=(), slopes=())


def prefill_attention_ratio() -> float:
    """Prefill attention's arithmetic over its traffic at achieved rates, for one layer at
    ``BLOCK_CONTEXT`` tokens (FlashAttention-2's measured rate against STREAM's bandwidth)."""
    m, ctx = INTRO_MODEL, BLOCK_CONTEXT
    flops = causal_attention_flops(m, ctx, ctx) / model(m).layers
    nbytes = flash_attention_hbm_bytes(
        ctx, model(m).head_dim, "bf16", heads=model(m).n_heads, block_rows=ctx
    )
    compute = flops / measurement("h100-sxm/flash-attention-2").value
    return compute / (nbytes / achievable_bandwidth(ACCELERATOR))


def block_roofline_html() -> SafeString:
    figure = chart_figure_html(block_chart(), numbered_labels=True, collapsed=True)
    achieved_ridge = measurement("h100-sxm/flash-attention-2").value / achievable_bandwidth(
        ACCELERATOR
    )
    return _figure(
        "block-roofline",
        figure,
        f"One decoder block of {model(INTRO_MODEL).name} on the H100's roofline in bf16, at "
        f"{BLOCK_CONTEXT:,} tokens of context. Points 1 and 2: decode, memory-bound; batching "
        f"moves the projections right along the slope, while decode attention stays at one FLOP "
        f"per byte at every batch. Point 3: prefill's causal attention, about N ÷ 4 FLOPs per "
        f"byte, just left of the datasheet ridge but right of the ridge at achieved rates "
        f"(about {format_quantity(achieved_ridge, 'FLOP/B', sig=2)}), so compute-bound in "
        f"practice. "
        f"Point 4: prefill's projections, compute-bound.",
        figure_sources(
            *_part_sources("bf16", l2=False),
            model(INTRO_MODEL),
            measurement("h100-sxm/flash-attention-2"),
            measurement(f"{ACCELERATOR}/stream-dot"),
        ),
    )


def precision_chart() -> Roofline:
    """The H100's fp8 roof with the bf16 roof beneath it, and each format's decode points."""
    part, m = accelerator(ACCELERATOR), PRECISION_MODEL
    fp8 = dtype("fp8")
    flops = model_flops_per_token(m) - 2 * embedding_params(m)  # the lookup does no matmul
    points = []
    for label, weights, arithmetic in PRECISION_FORMATS:
        bytes_read = decode_weight_bytes(m, weights)
        ridge = ridge_point(part, arithmetic)
        for batch in PRECISION_BATCHES:
            intensity = arithmetic_intensity(batch * flops, bytes_read)
            points.append(
                RooflinePoint(
                    f"{label}, batch {batch}",
                    intensity,
                    attainable_flops(part, arithmetic, intensity),
                    intensity < ridge,
                    False,
                )
            )
    return Roofline(
        part.name,
        fp8.name,
        part.peak(fp8),
        part.memory_bandwidth,
        ridge_point(part, fp8),
        tuple(points),
        (("bf16 roof", part.peak("bf16")),),
        mixed_formats=True,
    )


def precision_roofline_html() -> SafeString:
    m = model(PRECISION_MODEL)
    last = PRECISION_BATCHES[-1]
    return _figure(
        "precision-roofline",
        chart_figure_html(precision_chart(), collapsed=True),
        f"{m.name}'s decode on the H100 at batch 1 and {last}, with bf16 weights, fp8 weights "
        f"and arithmetic, and 4-bit GPTQ weights that are multiplied in bf16. The upper roof is "
        f"fp8's, the dashed one bf16's. At batch {last} the 4-bit weights have reached the bf16 "
        f"roof, while fp8, reading twice the bytes but multiplying twice as fast, is still on "
        f"the slope.",
        figure_sources(*_part_sources("bf16", "fp8", l2=False), m),
    )
