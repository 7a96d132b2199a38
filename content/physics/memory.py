"""Usable memory: how much of a device a model can fill, asked at one of three levels.

"Does it fit" has no single answer, because three parties stand between the silicon and the
model, and each keeps some memory back:

- ``"driver"``: the capacity the driver reports (nvidia-smi's total, ``memory_bytes``): 81,559 MiB
  for an "80 GB" H100.  Nothing can allocate all of it.
- ``"framework"``: what one PyTorch process can allocate.  The CUDA runtime reports a smaller total
  than the driver (``memory_runtime_bytes``: the driver keeps a few hundred MiB), and the process's
  own CUDA context takes a share of that before the first tensor (``measurement("cuda-context")``,
  287 MB with lazy module loading, the default of PyTorch and of CUDA 12.2 on).
- ``"serving"``: what a serving engine leaves for weights and KV cache.  vLLM requests
  ``gpu_memory_utilization`` of the runtime's total (default 0.9,
  ``measurement("vllm-gpu-memory-utilization")``) and keeps the rest free; inside that budget it
  first sets aside the peak of its profiling pass's activations and the memory held outside
  PyTorch's allocator (cuBLAS and NCCL workspaces), ``serving_reserve_bytes``, measured in its own
  log (``vllm/activation-peak``, ``vllm/non-torch-tp1``, ``vllm/non-torch-tp2``).  The level is
  ``utilization × runtime total − reserve``, never more than the framework level.  The reserve
  depends on the GPU count: a model split over several GPUs holds about 1.8 GiB more on each for
  NCCL's buffers (3.58 GiB of non-torch memory at tensor parallelism 2, used for every degree
  above 1), so every serving-level function takes ``gpus`` and gives the per-device budget of a
  job split that many ways.  The activation peak was measured on Llama-3-8B; other models' differ
  by a GB or so.  With the reserve, the KV-cache budget of Llama-3-8B on one H100 is vLLM's
  logged 53.29 GiB within 0.1%.

Parts without a published runtime total fall back to the driver's figure; the context reserve is
charged to GPUs only (a TPU or CPU "framework" level is the driver level).  Every figure is a
catalog look-up, so a question variant records the ones its answer used.  Fragmentation inside
PyTorch's caching allocator depends on the workload and is not modelled: a fit within a few
hundred MB of the limit is a fit on paper only.
"""

from __future__ import annotations

import math

from content.physics.catalog.accelerators import Accelerator, accelerator
from content.physics.catalog.measured import measurement
from content.physics.roofline import AcceleratorLike

LEVELS = ("driver", "framework", "serving")
# vLLM's default; the catalog entry "vllm-gpu-memory-utilization" carries its source, and a test
# keeps the two equal (a default argument cannot be a look-up).
DEFAULT_UTILIZATION = 0.9
# Below this ratio a byte count counts as fitting: guards 160e9 / 80e9 against float noise.
FIT_TOLERANCE = 1e-9


def _check_level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"unknown memory level {level!r}; use one of {', '.join(LEVELS)}")
    return level


def _check_utilization(utilization: float) -> float:
    if not 0 < utilization <= 1:
        raise ValueError("utilization must be more than 0 and at most 1")
    return utilization


def runtime_total_bytes(acc: AcceleratorLike) -> float:
    """Bytes the CUDA runtime reports to a program (``memory_runtime_bytes``); the driver's total
    where no runtime figure is published."""
    part = accelerator(acc)
    return part.memory_runtime_bytes or part.memory_bytes


def runtime_reserve_bytes(acc: AcceleratorLike) -> float:
    """Bytes a framework process holds before allocating: its CUDA context on a GPU (the catalog's
    "cuda-context"), nothing on a TPU or CPU."""
    part = accelerator(acc)
    return measurement("cuda-context").value if part.kind == "gpu" else 0.0


def serving_reserve_bytes(acc: AcceleratorLike, *, gpus: int = 1) -> float:
    """Bytes a serving engine sets aside on each GPU inside its budget before the KV cache gets
    the rest: its profiling pass's activation peak plus the memory held outside PyTorch's
    allocator, which grows with NCCL's buffers once a model is split (vLLM's own log: 1.26 GiB
    + 1.79 GiB alone, + 3.58 GiB at tensor parallelism 2, used for every degree above 1).
    Nothing on a TPU or CPU."""
    part = accelerator(acc)
    _check_gpus(gpus)
    if part.kind != "gpu":
        return 0.0
    non_torch = measurement("vllm/non-torch-tp1" if gpus == 1 else "vllm/non-torch-tp2")
    return measurement("vllm/activation-peak").value + non_torch.value


def usable_memory_bytes(
    acc: AcceleratorLike,
    level: str = "serving",
    *,
    gpus: int = 1,
    utilization: float = DEFAULT_UTILIZATION,
) -> float:
    """Bytes of each device that a model split over ``gpus`` devices may use at ``level``:

    - driver: the reported capacity, ``memory_bytes``;
    - framework: runtime total − CUDA context;
    - serving: min(utilization × runtime total − serving_reserve_bytes(acc, gpus=gpus),
      framework level), what vLLM leaves on each GPU for weights and KV cache (``utilization``
      0.9 by default, in (0, 1]; the reserve grows once the model is split).

    Only the serving level depends on ``gpus``.  H100 SXM: 85.52 GB (driver), 84.76 GB
    (framework), 73.27 GB (serving at 0.9, alone), 71.35 GB (serving, each of 2 or more).
    """
    part = accelerator(acc)
    _check_level(level)
    _check_utilization(utilization)
    _check_gpus(gpus)
    if level == "driver":
        return part.memory_bytes
    total = runtime_total_bytes(part)
    framework = total - runtime_reserve_bytes(part)
    if level == "framework":
        return framework
    budget = utilization * total - serving_reserve_bytes(part, gpus=gpus)
    if budget <= 0:
        raise ValueError(
            f"a utilization of {utilization:g} leaves nothing once the serving engine's "
            "activations and buffers are set aside"
        )
    return min(budget, framework)


def _capacity(acc: Accelerator | str, level: str, utilization: float, gpus: int) -> float:
    return usable_memory_bytes(acc, level, gpus=gpus, utilization=utilization)


def _check_gpus(gpus: int) -> int:
    if gpus < 1 or int(gpus) != gpus:
        raise ValueError("gpus must be a whole number of at least 1")
    return int(gpus)


def fits(
    bytes_needed: float,
    acc: AcceleratorLike,
    *,
    gpus: int = 1,
    level: str = "serving",
    utilization: float = DEFAULT_UTILIZATION,
) -> bool:
    """True when ``bytes_needed`` fits in ``gpus`` devices' usable memory at ``level``, split
    perfectly: bytes ≤ gpus × usable_memory_bytes(acc, level, gpus=gpus).  Same rounding as
    ``min_gpus``, so fits(b, acc, gpus=n) == (min_gpus(b, acc) <= n) at any one level."""
    _check_gpus(gpus)
    return bytes_needed / _capacity(acc, level, utilization, gpus) <= gpus + FIT_TOLERANCE


def min_gpus(
    bytes_needed: float,
    acc: AcceleratorLike,
    *,
    level: str = "serving",
    utilization: float = DEFAULT_UTILIZATION,
) -> int:
    """The fewest devices whose usable memory at ``level`` holds ``bytes_needed``: 1 when one
    device's budget holds it, else ceil(bytes ÷ usable_memory_bytes(acc, level, gpus=2)), the
    per-device budget of a split job (at the serving level smaller than one device's alone).
    Assumes a perfect split; memory for the KV cache must be in ``bytes_needed``."""
    if bytes_needed / _capacity(acc, level, utilization, 1) <= 1 + FIT_TOLERANCE:
        return 1
    # A split's per-device budget is the same for every count of 2 or more.
    ratio = bytes_needed / _capacity(acc, level, utilization, 2)
    return max(2, math.ceil(ratio - FIT_TOLERANCE))


def spare_memory_bytes(
    bytes_needed: float,
    acc: AcceleratorLike,
    *,
    gpus: int = 1,
    level: str = "serving",
    utilization: float = DEFAULT_UTILIZATION,
) -> float:
    """Usable bytes left over on ``gpus`` devices at ``level`` once ``bytes_needed`` is in place:
    gpus × usable_memory_bytes(acc, level, gpus=gpus) − bytes (negative when it does not fit)."""
    _check_gpus(gpus)
    return gpus * _capacity(acc, level, utilization, gpus) - bytes_needed


def memory_fits(
    bytes_needed: float,
    acc: AcceleratorLike,
    devices: int = 1,
    *,
    level: str = "serving",
    utilization: float = DEFAULT_UTILIZATION,
) -> bool:
    """``fits`` with the device count as a positional ``devices`` (the older name, kept so
    published templates still run)."""
    if devices < 1:
        raise ValueError("devices must be at least 1")
    return fits(bytes_needed, acc, gpus=devices, level=level, utilization=utilization)


__all__ = [
    "DEFAULT_UTILIZATION",
    "FIT_TOLERANCE",
    "LEVELS",
    "fits",
    "memory_fits",
    "min_gpus",
    "runtime_reserve_bytes",
    "runtime_total_bytes",
    "serving_reserve_bytes",
    "spare_memory_bytes",
    "usable_memory_bytes",
]
