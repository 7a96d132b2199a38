"""The memory checks: a model (and its KV cache, or its training state) fits the memory that the
stated parallelism gives it, at the usable level (what a runtime can allocate after its own
reserve), never the bare capacity the device reports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from content import physics

# Levels of `content.physics.usable_memory_bytes`: "driver" is the capacity the driver reports,
# "framework" what one PyTorch process can allocate, "serving" a serving engine's budget.
DEFAULT_LEVEL = "serving"
TRAINING_LEVEL = "framework"


def usable_bytes(acc, level: str, devices: int) -> float:
    """The memory `devices` accelerators give a job split over them at `level`, in bytes (the
    serving level's per-device budget shrinks once the job is split)."""
    return physics.usable_memory_bytes(acc, level, gpus=devices) * devices


def _on(acc, devices: int) -> str:
    return f"{devices} x {acc.name}" if devices > 1 else f"one {acc.name}"


def fits_memory(args: Mapping[str, Any]) -> str | None:
    m = physics.model(args["model"])
    acc = physics.accelerator(args["accelerator"])
    dt = physics.dtype(args["dtype"])
    kv_dt = physics.dtype(args["kv_dtype"]) if args["kv_dtype"] is not None else dt
    devices = int(args["devices"])
    level = str(args["level"])
    batch, context = args["batch"], args["context"]
    weights = physics.weights_bytes(m, dt)
    kv = physics.kv_cache_bytes(m, context, kv_dt, batch=batch, window=True)
    # A serving engine also caps the sequences it schedules at once, whatever memory is left; a
    # batch past it is one no default server runs, and "ignore the activations" stops being
    # harmless there.
    cap = physics.serving_batch_cap(acc)
    if level == "serving" and batch > cap:
        return (
            f"a batch of {batch:g} sequences is more than the {cap} a serving engine schedules "
            f"at once on {_on(acc, devices)} (vLLM's default max_num_seqs), whatever memory "
            "is left: bound the batch (a constraint), or judge the fit at another `level:`"
        )
    if physics.fits(weights + kv, acc, gpus=devices, level=level):
        return None
    capacity = usable_bytes(acc, level, devices)
    parallel = "" if devices > 1 else " (state `devices:` if the model is split over several)"
    return (
        f"{m.name} in {dt.name} ({weights / 1e9:.1f} GB of weights) with a KV cache of "
        f"{kv / 1e9:.1f} GB (batch {batch:g}, context {context:g}) needs "
        f"{(weights + kv) / 1e9:.1f} GB, more than the {capacity / 1e9:.1f} GB usable "
        f"({level} level) of {_on(acc, devices)}{parallel}"
    )


def fits_bytes(args: Mapping[str, Any]) -> str | None:
    acc = physics.accelerator(args["accelerator"])
    devices, level = int(args["devices"]), str(args["level"])
    need, capacity = args["bytes"], usable_bytes(acc, level, devices)
    if physics.fits(need, acc, gpus=devices, level=level):
        return None
    what = f" ({args['what']})" if args["what"] else ""
    return (
        f"{need / 1e9:.1f} GB{what} do not fit the {capacity / 1e9:.1f} GB that "
        f"{_on(acc, devices)} give at the {level} level"
    )


def training_fits(args: Mapping[str, Any]) -> str | None:
    m = physics.model(args["model"])
    acc = physics.accelerator(args["accelerator"])
    devices = int(args["devices"])
    per_param = float(args["bytes_per_param"])
    sharded = bool(args["sharded"])
    state = m.params * per_param / (devices if sharded else 1)
    capacity = usable_bytes(acc, str(args["level"]), 1)
    if state <= capacity:
        return None
    how = f"sharded over {devices} GPUs" if sharded else "replicated on every GPU"
    return (
        f"{m.name}'s training state ({per_param:g} B per parameter: weights, gradients and "
        f"optimizer state) {how} is {state / 1e9:.1f} GB per GPU, more than the "
        f"{capacity / 1e9:.1f} GB one {acc.name} gives at the {args['level']} level, before "
        "any activations"
    )


__all__ = [
    "DEFAULT_LEVEL",
    "fits_bytes",
    "fits_memory",
    "training_fits",
    "usable_bytes",
]
