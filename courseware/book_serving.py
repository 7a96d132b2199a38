"""Chapter 03's serving pictures, computed from ``content.physics`` when the page renders.

``pass_time_html()``: one decode pass of the running example (Llama-3-8B in bf16 on an H100,
the batch its memory holds at 2,500 tokens) as a time bar: the weights' read, the caches' read,
and the arithmetic of the prompt tokens a pass must prefill in steady state, laid beside the
memory time when the kernels overlap and after it when they do not.  It draws what the
chunked-prefill section and the napkin compute: the prompts are free only at perfect overlap
(sixth review, D03-1 and D03-9; one operating point since the eighth pass, F-7).

``request_bill_html()``: where one request's GPU time goes, prefill and its share of 499
decode passes at the memory-limited batch, for the three arrangements the cost section prices
(prompts on GPUs of their own, the system prompt cached, prompts in the decode passes' idle
tensor cores).  Times are roofline floors, as the section's prices are.

Both reuse the bar figure of ``courseware.book_bars`` (labels above the bars, a table of the
same numbers, sources under the caption).
"""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from content.physics import (
    accelerator,
    decode_flops_per_token,
    decode_weight_bytes,
    format_quantity,
    kv_cache_bytes,
    max_batch_for_memory,
    model,
    prefill_time,
    prefix_cache_prefill_time,
    source,
)
from courseware.book_bars import LEFT, PLOT, ROW, TOP, WIDTH, Bar, Segment
from courseware.book_figures import figure_sources, sources_html

MODEL, ACCELERATOR, DTYPE = "llama-3-8b", "h100-sxm", "bf16"
PROMPT, ANSWER, CONTEXT, CACHED = 2000, 500, 2500, 1500


def operating_point() -> tuple[int, int]:
    """(batch, prompt tokens per pass): as many conversations as memory holds, and the prompt
    tokens a pass must prefill so that as many requests start as finish (each stays for
    ANSWER - 1 passes), as the chapter's chunked-prefill section counts them."""
    batch = max_batch_for_memory(MODEL, ACCELERATOR, DTYPE, CONTEXT)
    return batch, round(PROMPT * batch / (ANSWER - 1))


def _ms(seconds: float, sig: int = 2) -> str:
    """Pass times to two figures, as the chapter prints them; the weights' read (the floor per
    token, 4.48 ms) to three, as the chapter prints that (sixth review, D03-8)."""
    return format_quantity(seconds, "s", sig=sig)


def _sources() -> list:
    part = accelerator(ACCELERATOR)
    keys = (part.source_key(f"peak_flops.{DTYPE}"), part.source_key("memory_bandwidth"))
    return figure_sources(*(source(k) for k in keys if k), model(MODEL))


def _bars(rows: list[tuple[str, list[tuple[str, float, float]]]], top: float) -> list[Bar]:
    """``rows``: (label, [(kind, start, duration)]) in seconds, drawn on a common scale."""
    scale = PLOT / top
    bars = []
    for i, (label, parts) in enumerate(rows):
        segments = tuple(Segment(kind, LEFT + start * scale, d * scale) for kind, start, d in parts)
        end = max(start + d for _, start, d in parts)
        bars.append(
            Bar(
                label=label,
                value_text=_ms(end),
                y=TOP + i * ROW,
                segments=segments,
                end=LEFT + end * scale + 4,
            )
        )
    return bars


def _ticks(top: float, step: float) -> list[dict]:
    count = int(top / step + 1e-9)
    return [
        {"x": LEFT + PLOT * k * step / top, "text": _ms(k * step) if k else "0"}
        for k in range(count + 1)
    ]


def _render(css: str, title: str, description: str, bars, ticks, keys, head, table, caption):
    chart = {"bars": bars, "ticks": ticks, "line_x": None}
    return render_to_string(
        "courseware/_bar_figure.html",
        {
            "id": css,
            "class": css,
            "height": TOP + len(bars) * ROW + 20,
            "width": WIDTH,
            "title": title,
            "description": description,
            "chart": chart,
            "axis_y": TOP + len(bars) * ROW - 6,
            "keys": keys,
            "table_caption": title,
            "table_head": head,
            "table": table,
            "caption": caption,
            "sources": sources_html(_sources()),
        },
    )


# ---- one pass, with and without a prefill chunk ------------------------------------------


def pass_time_rows() -> list[tuple[str, list[tuple[str, float, float]]]]:
    part = accelerator(ACCELERATOR)
    batch, prompts = operating_point()
    weights = decode_weight_bytes(MODEL, DTYPE) / part.memory_bandwidth
    caches = kv_cache_bytes(MODEL, CONTEXT, DTYPE, batch) / part.memory_bandwidth
    per_token = decode_flops_per_token(MODEL) / part.peak(DTYPE)
    own, chunk = batch * per_token, (batch + prompts) * per_token
    memory = [("weights", 0.0, weights), ("cache", weights, caches)]
    if own > weights + caches or chunk > weights + caches:
        raise ValueError("the pass is no longer memory-bound: the picture's premise fails")
    return [
        (f"decode pass, {batch} conversations", [*memory, ("hidden", 0.0, own)]),
        (f"+ {prompts} prompt tokens, overlapped", [*memory, ("hidden", 0.0, chunk)]),
        (
            f"+ {prompts} prompt tokens, not overlapped",
            [*memory, ("compute", weights + caches, chunk)],
        ),
    ]


def pass_time_html() -> SafeString:
    rows = pass_time_rows()
    ends = [max(s + d for _, s, d in parts) for _, parts in rows]
    # ticks every 5 ms while they fit; past 20 ms their labels touch at the phone's width
    step = 5e-3 if max(ends) <= 20e-3 else 10e-3
    top = step * (int(max(ends) / step) + 1)
    name = model(MODEL).name
    title = f"One decode pass of {name} on an H100, with and without a prefill chunk"

    def total(kinds, parts):
        return sum(d for k, _, d in parts if k in kinds)

    table = [
        [
            label,
            _ms(total(("weights",), p), sig=3),
            _ms(total(("cache",), p), sig=3),
            _ms(total(("compute", "hidden"), p)),
            _ms(end),
        ]
        for (label, p), end in zip(rows, ends, strict=True)
    ]
    description = (
        f"{title}. "
        + "; ".join(
            f"{r[0]}: weights {r[1]}, caches {r[2]}, arithmetic {r[3]}, pass {r[4]}" for r in table
        )
        + "."
    )
    batch, prompts = operating_point()
    caption = (
        f"Memory time (weights, then {batch} caches of {CONTEXT:,} tokens) sets a decode pass. "
        f"The {prompts} prompt tokens a pass must prefill in steady state bring arithmetic "
        f"(with the batch's own {batch} tokens) that the idle tensor cores absorb only if the "
        f"kernels overlap it with the memory traffic; if they do not, it adds to the pass, and "
        f"every user waits that much longer for the next token. Roofline floors at the "
        f"datasheet peaks."
    )
    return _render(
        "pass-time",
        title,
        description,
        _bars(rows, top),
        _ticks(top, step),
        [
            ("weights", "weights read"),
            ("cache", "KV caches read"),
            ("hidden", "arithmetic, overlapped"),
            ("compute", "arithmetic, after"),
        ],
        ["pass", "weights", "caches", "arithmetic", "pass time"],
        table,
        caption,
    )


# ---- where one request's GPU time goes --------------------------------------------------


def request_time_rows() -> list[tuple[str, list[tuple[str, float, float]]]]:
    part = accelerator(ACCELERATOR)
    batch = max_batch_for_memory(MODEL, ACCELERATOR, DTYPE, CONTEXT)
    pass_time = (
        decode_weight_bytes(MODEL, DTYPE) + kv_cache_bytes(MODEL, CONTEXT, DTYPE, batch)
    ) / part.memory_bandwidth
    if batch * decode_flops_per_token(MODEL) / part.peak(DTYPE) > pass_time:
        raise ValueError("the full batch's pass is compute-bound: the bill's premise fails")
    decode = (ANSWER - 1) * pass_time / batch
    whole = prefill_time(MODEL, ACCELERATOR, DTYPE, PROMPT)
    cached = prefix_cache_prefill_time(MODEL, ACCELERATOR, DTYPE, PROMPT, CACHED)
    return [
        ("prompt on a GPU of its own", [("compute", 0.0, whole), ("cache", whole, decode)]),
        (
            f"the same, {CACHED:,} tokens cached",
            [("compute", 0.0, cached), ("cache", cached, decode)],
        ),
        ("prompt in the passes' idle cores", [("cache", 0.0, decode)]),
    ]


def request_bill_html() -> SafeString:
    rows = request_time_rows()
    ends = [max(s + d for _, s, d in parts) for _, parts in rows]
    step = 40e-3
    top = step * (int(max(ends) / step) + 1)
    name = model(MODEL).name
    batch = max_batch_for_memory(MODEL, ACCELERATOR, DTYPE, CONTEXT)
    title = f"GPU time of one {name} request: {PROMPT:,} tokens in, {ANSWER} out"

    def total(kind, parts):
        return sum(d for k, _, d in parts if k == kind)

    table = [
        [
            label,
            _ms(total("compute", p)) if total("compute", p) else "none",
            _ms(total("cache", p)),
            _ms(end),
        ]
        for (label, p), end in zip(rows, ends, strict=True)
    ]
    description = (
        f"{title}. "
        + "; ".join(
            f"{r[0]}: prefill {r[1]}, share of decode passes {r[2]}, total {r[3]}" for r in table
        )
        + "."
    )
    own = rows[0][1]
    share = total("compute", own) / (total("compute", own) + total("cache", own))
    caption = (
        f"A request pays for its prefill and for a 1/{batch} share of each of its {ANSWER - 1} "
        f"decode passes at the memory-limited batch of {batch}. On a GPU of its own the prompt "
        f"is {share:.0%} of the time; caching a shared system prompt cuts that, and riding in "
        f"the decode passes' idle tensor cores removes it, at perfect overlap. Roofline floors; "
        f"multiply by the GPU's price per second for dollars."
    )
    return _render(
        "request-bill",
        title,
        description,
        _bars(rows, top),
        _ticks(top, step),
        [("compute", "prefill"), ("cache", "share of decode passes")],
        ["prompts run", "prefill", "share of decode passes", "GPU time"],
        table,
        caption,
    )
