"""Published deployments of large models: how many GPUs a serving unit spans and how the model
is split across them, as their operators describe them.

A deployment unit is the smallest group of GPUs that serves one copy of the model in one phase
(prefill or decode, which disaggregated systems run on separate GPUs).  Attention runs with
``attention_tp``-way tensor parallelism inside ``attention_dp`` data-parallel groups; the routed
experts are spread ``expert_parallel`` ways, ``routed_experts_per_gpu`` on each GPU, with
``redundant_experts`` extra copies of the busiest ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from content.physics._lookup import FrozenMap, Registry, freeze
from content.physics.catalog.sources import Source, cite


@dataclass(frozen=True)
class Deployment:
    """One published serving unit of ``model`` on ``nodes`` × ``gpus_per_node`` GPUs."""

    key: str
    name: str
    model: str
    stage: str
    accelerator_name: str
    nodes: int
    gpus_per_node: int
    attention_tp: int
    attention_dp: int
    expert_parallel: int
    routed_experts_per_gpu: int
    shared_experts_per_gpu: int | None
    redundant_experts: int | None
    nodes_per_token: int | None
    scale_up_bandwidth: float | None
    scale_out_bandwidth: float | None
    date: str
    sources: Mapping[str, str] = field(default_factory=FrozenMap)
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "sources", freeze(self.sources))
        if self.stage not in ("prefill", "decode"):
            raise ValueError(f"{self.key}: stage must be prefill or decode")
        if self.attention_tp * self.attention_dp != self.gpus:
            raise ValueError(f"{self.key}: attention TP × DP must cover the unit's GPUs")

    @property
    def gpus(self) -> int:
        """GPUs in the unit: nodes × GPUs per node."""
        return self.nodes * self.gpus_per_node

    def citations(self) -> tuple[Source, ...]:
        return cite(self)


_FIELDS = (
    "nodes",
    "gpus_per_node",
    "attention_tp",
    "attention_dp",
    "expert_parallel",
    "routed_experts_per_gpu",
    "shared_experts_per_gpu",
    "redundant_experts",
    "nodes_per_token",
    "scale_up_bandwidth",
    "scale_out_bandwidth",
)


def _d(key, name, stage, src, *, date, notes="", **figures) -> Deployment:
    sources = {f: src for f in _FIELDS if figures.get(f) is not None}
    # The H800 cluster's link rates and the routing limit are stated once, in the paper.
    for f in ("scale_up_bandwidth", "scale_out_bandwidth", "nodes_per_token"):
        if figures.get(f) is not None:
            sources[f] = "deepseek-v3-report"
    return Deployment(
        key,
        name,
        "deepseek-v3",
        stage,
        "H800",
        date=date,
        sources=sources,
        notes=notes,
        **figures,
    )


_H800 = {
    "gpus_per_node": 8,
    "nodes_per_token": 4,
    "scale_up_bandwidth": 160e9,
    "scale_out_bandwidth": 50e9,
}

_DEPLOYMENTS = (
    _d(
        "deepseek-v3-prefill-2024",
        "DeepSeek-V3 prefill unit (technical report)",
        "prefill",
        "deepseek-v3-report",
        date="2024-12",
        nodes=4,
        attention_tp=4,
        attention_dp=8,
        expert_parallel=32,
        routed_experts_per_gpu=9,
        shared_experts_per_gpu=None,
        redundant_experts=32,
        notes="Each GPU hosts 8 routed experts and 1 redundant copy of a busy one; tokens cross "
        "to their target servers over InfiniBand, then to the right GPU over NVLink; two "
        "micro-batches overlap one's attention and experts with the other's all-to-all.",
        **_H800,
    ),
    _d(
        "deepseek-v3-decode-2024",
        "DeepSeek-V3 decode unit (technical report)",
        "decode",
        "deepseek-v3-report",
        date="2024-12",
        nodes=40,
        attention_tp=4,
        attention_dp=80,
        expert_parallel=320,
        routed_experts_per_gpu=1,
        shared_experts_per_gpu=None,
        redundant_experts=None,
        notes="256 GPUs hold one routed expert each and 64 hold the redundant and shared "
        "experts; dispatch and combine are direct point-to-point transfers over InfiniBand "
        "(IBGDA). Each expert's batch is usually within 256 tokens.",
        **_H800,
    ),
    _d(
        "deepseek-v3-prefill-2025",
        "DeepSeek-V3 prefill unit (inference system overview)",
        "prefill",
        "deepseek-infra-2025",
        date="2025-02",
        nodes=4,
        attention_tp=1,
        attention_dp=32,
        expert_parallel=32,
        routed_experts_per_gpu=9,
        shared_experts_per_gpu=1,
        redundant_experts=32,
        **_H800,
    ),
    _d(
        "deepseek-v3-decode-2025",
        "DeepSeek-V3 decode unit (inference system overview)",
        "decode",
        "deepseek-infra-2025",
        date="2025-02",
        nodes=18,
        attention_tp=1,
        attention_dp=144,
        expert_parallel=144,
        routed_experts_per_gpu=2,
        shared_experts_per_gpu=1,
        redundant_experts=32,
        notes="MLA and the shared expert run data-parallel on every GPU; decoding overlaps two "
        "micro-batches in a five-stage pipeline.",
        **_H800,
    ),
)

DEPLOYMENTS = Registry("deployment", _DEPLOYMENTS)


def deployment(name: str | Deployment) -> Deployment:
    """The deployment unit called ``name`` (``"deepseek-v3-decode-2024"``, ...)."""
    return DEPLOYMENTS.get(name, Deployment)


def deployments() -> tuple[Deployment, ...]:
    """Every catalogued deployment unit."""
    return DEPLOYMENTS.all()
