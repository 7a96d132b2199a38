"""The napkin calculator: memory, latency, throughput and cost of serving a model, with working.

Every figure is a ``content.physics`` function; its working is ``content.physics.explain``'s steps
for the same call, so the number shown and the working can never disagree.  ``n`` GPUs are modelled
as one part with n times the memory, bandwidth, peak and power (an even tensor-parallel split that
ignores the time spent communicating, the optimistic napkin bound).  Whether the model fits is
judged at a stated memory level (``content.physics.memory``): a serving engine's budget by default.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal

from content.physics import (
    Accelerator,
    accelerator,
    dtype,
    explain,
    format_quantity,
    model,
    model_flops_per_token,
    price,
    runtime_total_bytes,
    serving_reserve_bytes,
    usable_memory_bytes,
)
from content.physics.explain import Explanation, Step


@dataclass(frozen=True)
class Figure:
    """One result line: what it is, its value (SI base of ``unit``), how it reads, its working."""

    key: str
    label: str
    value: float | None
    unit: str
    display: str
    working: Explanation | None = None
    note: str = ""


@dataclass(frozen=True)
class PriceUsed:
    dollars_per_hour: float
    date: str | None
    source: str | None

    @property
    def from_catalog(self) -> bool:
        return self.date is not None


@dataclass(frozen=True)
class Napkin:
    """The calculator's answer: every figure in display order, plus the facts around them."""

    figures: tuple[Figure, ...]
    fits: bool
    min_gpus: int
    gpus: int
    group_name: str
    price: PriceUsed
    device: str = "GPU"
    warnings: tuple[str, ...] = ()
    level: str = "serving"

    @property
    def headline(self) -> str:
        """One line on the fit, counting the devices by their kind and naming the memory level
        it was judged at ("Fits on 1 GPU, within a serving engine's budget")."""
        chosen = f"{self.gpus} {_plural(self.device, self.gpus)}"
        within = LEVEL_PHRASES[self.level]
        if not self.fits:
            return f"Does not fit on {chosen} {within}: needs at least {self.min_gpus}"
        if self.min_gpus < self.gpus:
            return f"Fits on the {chosen} you chose {within}; {self.min_gpus} would do"
        return f"Fits on {chosen} {within}"

    def figure(self, key: str) -> Figure:
        """The figure named ``key`` ("weights", "decode_step", "cost", ...)."""
        for figure in self.figures:
            if figure.key == key:
                return figure
        raise KeyError(key)


LEVEL_PHRASES = {
    "serving": "within a serving engine's budget",
    "framework": "within what PyTorch can allocate",
    "driver": "within the driver's total",
}


def _plural(noun: str, count: int) -> str:
    return noun if count == 1 else f"{noun}s"


def gpu_group(acc, n: int) -> Accelerator:
    """``n`` copies of ``acc`` as one hypothetical part (capacity, bandwidth, peak, power × n)."""
    part = accelerator(acc)
    if n == 1:
        return part
    power = part.power_watts * n if part.power_watts is not None else None
    return dataclasses.replace(
        part,
        name=f"{n} × {part.name}",
        memory_bytes=part.memory_bytes * n,
        memory_label_bytes=part.memory_label_bytes * n,
        memory_bandwidth=part.memory_bandwidth * n,
        peak_flops={k: v * n for k, v in part.peak_flops.items()},
        sparse_peak_flops={k: v * n for k, v in part.sparse_peak_flops.items()},
        power_watts=power,
    )


def compute_format(part: Accelerator, weight_dt) -> str:
    """The format the tensor cores compute in: the weights' own, or a 16-bit one after
    dequantizing a weight-only format the part has no rate for (as ``decode_step_time`` does)."""
    try:
        part.peak(weight_dt)
        return dtype(weight_dt).name
    except KeyError:
        for fallback in ("bf16", "fp16", "fp32"):
            if fallback in part.peak_flops:
                return fallback
        raise


def _figure(key: str, label: str, working: Explanation, note: str = "") -> Figure:
    return Figure(
        key,
        label,
        working.value,
        working.unit,
        format_quantity(working.value, working.unit),
        working,
        note,
    )


def catalog_price(acc):
    """The catalog's dated rent for ``acc``: a GPU cloud's if there is one, else a hyperscaler's;
    KeyError when the catalog prices it nowhere."""
    try:
        return price(acc, "specialist")
    except KeyError:
        return price(acc, "hyperscaler")


def _price(acc, given: Decimal | float | None) -> PriceUsed:
    if given is not None:
        return PriceUsed(float(given), None, None)
    snapshot = catalog_price(acc)
    return PriceUsed(snapshot.dollars_per_hour, snapshot.date, snapshot.source)


def _warnings(mdl, part: Accelerator, w_fmt, context: int) -> tuple[str, ...]:
    """What the figures quietly assume: a context past the trained one, a borrowed rate."""
    found = []
    if mdl.context_length and context > mdl.context_length:
        found.append(
            f"A context of {context} tokens is beyond the {mdl.context_length} tokens "
            f"{mdl.name} was trained for; the figures show what holding it would cost."
        )
    rate_format = compute_format(part, w_fmt)
    if rate_format != w_fmt.name:
        found.append(
            f"The {part.name} has no {w_fmt.name} compute rate: compute is counted at its "
            f"{rate_format} rate, as if the weights were converted to {rate_format} on the fly."
        )
    return tuple(found)


def memory_note(part: Accelerator, level: str = "serving", gpus: int = 1) -> str:
    """The one sentence that explains the capacity shown: the level it is counted at (on each of
    ``gpus`` devices of a split job), and how it relates to the driver's total and the
    datasheet's label."""
    label = format_quantity(part.memory_label_bytes, "B")
    mib = part.memory_bytes / 2**20
    if part.memory_reported_published:
        in_mib = f"{mib:,.0f} MiB = " if mib == int(mib) else ""
        driver = (
            f"the driver reports {in_mib}{format_quantity(part.memory_bytes, 'B', sig=4)} per "
            f"{part.noun()} (memory is built in binary sizes; the datasheet says {label})"
        )
    else:
        driver = (
            f"no device-reported capacity is published for the {part.name}, so its datasheet "
            f"figure ({label}) stands in for the driver's"
        )
    if level == "driver":
        return driver[0].upper() + driver[1:] + "; nothing is held back for the runtime."
    runtime = runtime_total_bytes(part)
    runtime_text = (
        f"the {format_quantity(runtime, 'B', sig=4)} the CUDA runtime reports"
        if part.memory_runtime_bytes
        else "the driver's figure (no runtime total is published)"
    )
    if level == "framework":
        return (
            f"What one PyTorch process can allocate: {runtime_text}, less its CUDA context. "
            f"For comparison, {driver}."
        )
    reserve = format_quantity(serving_reserve_bytes(part, gpus=gpus), "B", sig=2)
    where = f" on each of the {gpus} GPUs" if gpus > 1 else ""
    log = "its own log; NCCL's buffers of a split model included" if gpus > 1 else "its own log"
    return (
        "A serving engine's budget: vLLM's default of 90% of "
        f"{runtime_text}, less the {reserve} of activations and buffers it sets aside{where} "
        f"({log}), for weights and KV cache. For comparison, {driver}."
    )


def _tex_quantity(value: float, unit: str) -> str:
    number, _, label = format_quantity(value, unit, sig=4).partition(" ")
    number = number.replace(",", "{,}")  # a thousands comma that TeX does not space
    return f"{number}\\ \\text{{{label}}}" if label else number


def napkin(
    *,
    model_name: str,
    weight_dtype: str,
    kv_dtype: str,
    accelerator_name: str,
    gpus: int,
    batch: int,
    context: int,
    prompt: int,
    price_per_hour: Decimal | float | None = None,
    level: str = "serving",
) -> Napkin:
    """Every figure of the calculator for these inputs (KeyError/ValueError for unknown names);
    whether it fits is judged at memory ``level``."""
    mdl, part = model(model_name), accelerator(accelerator_name)
    w_fmt, kv_fmt = dtype(weight_dtype), dtype(kv_dtype)
    group = gpu_group(part, gpus)
    cost = _price(part, price_per_hour)

    weights = explain("weights_bytes", mdl, w_fmt)
    kv = explain("kv_cache_bytes", mdl, context, kv_fmt, batch)
    total_bytes = weights.value + kv.value
    total = Explanation(
        "Memory to hold",
        (
            Step(
                "Weights plus KV cache",
                "M = W + C",
                f"{_tex_quantity(weights.value, 'B')} + {_tex_quantity(kv.value, 'B')}",
                format_quantity(total_bytes, "B"),
            ),
        ),
        total_bytes,
        "B",
    )
    fewest = explain("min_gpus", total_bytes, part, level=level)
    # memory_fits rounds as min_gpus does, so the headline and the fewest-GPUs row agree.
    fits = explain("memory_fits", total_bytes, part, gpus, level=level)
    usable = usable_memory_bytes(part, level, gpus=gpus) * gpus
    capacity = format_quantity(usable, "B")
    fit_note = (
        f"Fits in {capacity} ({gpus} × {part.name}, {LEVEL_PHRASES[level].split(' ', 1)[1]})."
        if fits.value
        else f"Does not fit in {capacity}: at least {fewest.value} {part.noun(fewest.value)} "
        "are needed. The times below assume it did."
    )
    beside = [f"driver: {format_quantity(group.memory_bytes, 'B')}"] if level != "driver" else []
    if part.memory_reported_published:
        beside.append(f"datasheet: {format_quantity(group.memory_label_bytes, 'B')}")
    capacity_figure = Figure(
        "capacity",
        f"Usable memory of {gpus} {part.noun(gpus)}",
        usable,
        "B",
        f"{capacity} ({'; '.join(beside)})" if beside else capacity,
        Explanation(fits.title, fits.steps[:-1], usable, "B"),
        memory_note(part, level, gpus),
    )

    prefill = explain("prefill_time", mdl, group, w_fmt, prompt, batch)
    same_format = w_fmt.name == kv_fmt.name
    if same_format:
        step = explain("decode_step_time", mdl, group, w_fmt, batch, context)
        rate = explain("decode_tokens_per_second", mdl, group, w_fmt, batch, context)
    else:
        flops = model_flops_per_token(mdl) * batch
        step = explain("kernel_time", flops, total_bytes, group, compute_format(group, w_fmt))
        step = dataclasses.replace(step, title=f"One decode step of {mdl.name} on {group.name}")
        rate_value = batch / step.value
        rate = Explanation(
            "Tokens per second",
            (
                Step(
                    "One token per sequence per step",
                    "r = \\frac{\\text{batch}}{t_{\\text{step}}}",
                    f"\\frac{{{batch}}}{{{_tex_quantity(step.value, 's')}}}",
                    format_quantity(rate_value, "tokens/s"),
                ),
            ),
            rate_value,
            "tokens/s",
        )
    dollars = explain("cost_per_million_tokens", cost.dollars_per_hour * gpus, rate.value)

    figures = [
        _figure("weights", "Weight memory", weights),
        _figure("kv_cache", "KV-cache memory", kv),
        _figure("total", "Total memory", total),
        capacity_figure,
        Figure(
            "min_gpus",
            f"Fewest {part.noun(2)} that hold it",
            fewest.value,
            part.noun(2),
            str(fewest.value),
            fewest,
            fit_note,
        ),
        _figure("prefill", "Prefill time (whole prompt)", prefill),
        _figure("decode_step", "Time per token (decode step)", step),
        _figure("tokens_per_second", "Tokens per second (whole batch)", rate),
        _figure("cost", "Dollars per million tokens", dollars),
    ]
    figures.append(_energy(mdl, group, w_fmt, batch, context, step, same_format))
    return Napkin(
        tuple(figures),
        fits.value,
        fewest.value,
        gpus,
        group.name,
        cost,
        device=part.noun(),
        warnings=_warnings(mdl, part, w_fmt, context),
        level=level,
    )


def _energy(mdl, group, w_fmt, batch, context, step: Explanation, same_format: bool) -> Figure:
    if group.power_watts is None:
        return Figure(
            "energy",
            "Energy per token",
            None,
            "J",
            "not published",
            note=f"The {accelerator(group.key).name} has no published power figure, so its "
            "energy per token cannot be estimated.",
        )
    if same_format:
        return _figure(
            "energy",
            "Energy per token",
            explain("energy_per_token", mdl, group, w_fmt, batch, context),
        )
    joules = group.power_watts * step.value / batch
    working = Explanation(
        "Energy per token",
        (
            Step(
                "Rated power over the step, shared by the batch",
                "E = \\frac{P_{\\text{power}} \\cdot t_{\\text{step}}}{\\text{batch}}",
                f"\\frac{{{_tex_quantity(group.power_watts, 'W')} \\times "
                f"{_tex_quantity(step.value, 's')}}}{{{batch}}}",
                format_quantity(joules, "J"),
            ),
        ),
        joules,
        "J",
    )
    return _figure("energy", "Energy per token", working)


__all__ = [
    "LEVEL_PHRASES",
    "Figure",
    "Napkin",
    "PriceUsed",
    "catalog_price",
    "compute_format",
    "gpu_group",
    "memory_note",
    "napkin",
]
