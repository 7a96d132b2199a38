"""Narrators for usable memory and "does it fit" (same parameter names as
``content.physics.memory``)."""

from __future__ import annotations

from content.physics.catalog.accelerators import accelerator
from content.physics.explain._steps import Step
from content.physics.explain._tex import frac, num, q, result
from content.physics.memory import fits as _fits
from content.physics.memory import min_gpus as _min_gpus
from content.physics.memory import (
    runtime_reserve_bytes,
    runtime_total_bytes,
    serving_reserve_bytes,
)
from content.physics.memory import usable_memory_bytes as _usable

_LEVEL_WORDS = {
    "driver": "as the driver reports it",
    "framework": "what PyTorch can allocate",
    "serving": "a serving engine's budget",
}


def level_phrase(level: str, utilization: float, gpus: int = 1) -> str:
    """How a level reads in a sentence: "a serving engine's budget (90% of the runtime's total,
    less its reserve)".  The budget is not the utilization itself, so the label says both."""
    words = _LEVEL_WORDS[level]
    if level != "serving":
        return words
    reserve = "its reserve for a split model" if gpus > 1 else "its reserve"
    return f"{words} ({utilization:.0%} of the runtime's total, less {reserve})"


def usable_steps(acc, level, utilization, gpus=1) -> tuple[float, list[Step]]:
    """The usable memory of each device of a job split over ``gpus`` at ``level``, and the steps
    that get there."""
    part = accelerator(acc)
    value = _usable(part, level, gpus=gpus, utilization=utilization)
    if level == "driver":
        label = "as the driver reports it" if part.memory_reported_published else "datasheet label"
        return value, [
            Step(
                f"Memory of one {part.name} ({label})",
                "M_{\\text{driver}}",
                q(part.memory_bytes, "B"),
                result(value, "B"),
            )
        ]
    total = runtime_total_bytes(part)
    published = part.memory_runtime_bytes is not None
    steps = [
        Step(
            "Total the GPU's runtime (CUDA or ROCm) reports to programs"
            + ("" if published else " (none published: the driver's figure)"),
            "M_{\\text{runtime}}",
            q(total, "B"),
            result(total, "B"),
        )
    ]
    reserve = runtime_reserve_bytes(part)
    framework = total - reserve
    engine = serving_reserve_bytes(part, gpus=gpus)
    if level == "framework" or framework < utilization * total - engine:
        steps.append(
            Step(
                "Less the CUDA context the process creates",
                "M = M_{\\text{runtime}} - C",
                f"{q(total, 'B')} - {q(reserve, 'B')}",
                result(framework, "B"),
            )
        )
        return value, steps
    if not engine:
        steps.append(
            Step(
                "A serving engine's budget: its memory utilization times the runtime's total",
                "M = u \\times M_{\\text{runtime}}",
                f"{num(utilization)} \\times {q(total, 'B')}",
                result(value, "B"),
            )
        )
        return value, steps
    where = f" on each of {gpus} GPUs (NCCL's buffers included)" if gpus > 1 else ""
    steps.append(
        Step(
            "A serving engine's budget (its memory utilization times the runtime's total), less "
            f"the activations and buffers it sets aside{where}",
            "M = u \\times M_{\\text{runtime}} - R",
            f"{num(utilization)} \\times {q(total, 'B')} - {q(engine, 'B')}",
            result(value, "B"),
        )
    )
    return value, steps


def usable_memory_bytes(acc, level, gpus, utilization):
    part = accelerator(acc)
    _, steps = usable_steps(part, level, utilization, gpus)
    each = f"each of {gpus} {part.name} {part.noun(gpus)}" if gpus > 1 else f"one {part.name}"
    return f"Usable memory of {each}: {level_phrase(level, utilization, gpus)}", steps


def _capacity_step(part, gpus, per_device, level, utilization):
    capacity = per_device * gpus
    return capacity, Step(
        f"Usable memory of {gpus} {part.noun(gpus)}, {level_phrase(level, utilization, gpus)}",
        "M = n \\times M_{\\text{device}}",
        f"{num(gpus)} \\times {q(per_device, 'B')}",
        result(capacity, "B"),
    )


def fits(bytes_needed, acc, gpus, level, utilization):
    part = accelerator(acc)
    per_device, steps = usable_steps(part, level, utilization, gpus)
    capacity, step = _capacity_step(part, gpus, per_device, level, utilization)
    verdict = _fits(bytes_needed, part, gpus=gpus, level=level, utilization=utilization)
    sign = "\\le" if verdict else ">"
    steps += [
        step,
        Step(
            "Compare",
            "D \\le M",
            f"{q(bytes_needed, 'B')} {sign} {q(capacity, 'B')}",
            "fits" if verdict else "does not fit",
        ),
    ]
    return f"Does {result(bytes_needed, 'B')} fit on {gpus} {part.name}?", steps


def memory_fits(bytes_needed, acc, devices, level, utilization):
    return fits(bytes_needed, acc, devices, level, utilization)


def min_gpus_steps(bytes_needed, part, level, utilization) -> list[Step]:
    """One device's budget, the split budget when one device is not enough and a split's
    differs, and the count."""
    alone, steps = usable_steps(part, level, utilization)
    count = _min_gpus(bytes_needed, part, level=level, utilization=utilization)
    per_device, gpus = alone, 1
    if count > 1:
        split, split_steps = usable_steps(part, level, utilization, count)
        if split != alone:
            per_device, gpus = split, count
            steps.append(
                Step(
                    "More than one GPU holds: split, each GPU keeps more back",
                    "D > M_1",
                    f"{q(bytes_needed, 'B')} > {q(alone, 'B')}",
                    "split",
                )
            )
            steps.append(split_steps[-1])
    steps.append(
        Step(
            f"Whole {part.name} {part.noun(2)} needed ({result(per_device, 'B')} each, "
            f"{level_phrase(level, utilization, gpus)})",
            "n = \\left\\lceil \\frac{M}{M_{\\text{device}}} \\right\\rceil",
            f"\\left\\lceil {frac(q(bytes_needed, 'B'), q(per_device, 'B'))} "
            f"\\right\\rceil = \\lceil {num(bytes_needed / per_device, 3)} \\rceil",
            f"{count} {part.noun(count)}",
        )
    )
    return steps


def min_gpus(bytes_needed, acc, level, utilization):
    part = accelerator(acc)
    steps = min_gpus_steps(bytes_needed, part, level, utilization)
    return f"Fewest {part.name} {part.noun(2)} that hold {result(bytes_needed, 'B')}", steps


def spare_memory_bytes(bytes_needed, acc, gpus, level, utilization):
    part = accelerator(acc)
    per_device, steps = usable_steps(part, level, utilization, gpus)
    capacity, step = _capacity_step(part, gpus, per_device, level, utilization)
    steps += [
        step,
        Step(
            "Left over",
            "M - D",
            f"{q(capacity, 'B')} - {q(bytes_needed, 'B')}",
            result(capacity - bytes_needed, "B"),
        ),
    ]
    return f"Memory to spare on {gpus} {part.name}", steps
