"""Published measurements the chapters quote: one figure each, with the paper, table or page it
comes from, so that a perplexity, a speed-up or a production statistic is read from the catalog
and never typed into prose.

``value`` is in the SI base of ``unit`` like every figure of the module (seconds, tokens/s,
dollars per hour); dimensionless figures (perplexities, accuracies, fractions, speed-ups) have
the unit "".  ``where`` names the place in the source (a table, a section, a line).
"""

from __future__ import annotations

from dataclasses import dataclass

from content.physics._lookup import Registry
from content.physics.catalog.sources import Source, source


@dataclass(frozen=True)
class PublishedFigure:
    """One figure as a paper or an operator published it."""

    key: str
    name: str
    value: float
    unit: str
    source: str
    where: str
    notes: str = ""
    # Decimal places the source prints (perplexity 5.60 has 2), so a table can show the figure
    # exactly as published; None for figures printed as plain numbers.
    decimals: int | None = None

    def shown(self) -> str:
        """The figure as the source prints it: ``value`` with the source's decimal places."""
        if self.decimals is None:
            return f"{self.value:g}"
        return f"{self.value:.{self.decimals}f}"

    def citations(self) -> tuple[Source, ...]:
        return (source(self.source),)


def _table(prefix, src, where, rows, *, unit="", what="WikiText-2 perplexity", decimals=2):
    """Entries ``prefix-<column>`` for one table row per (suffix, label, value)."""
    return tuple(
        PublishedFigure(
            f"{prefix}-{suffix}", f"{label}: {what}", value, unit, src, where, decimals=decimals
        )
        for suffix, label, value in rows
    )


_AWQ_T4 = "Table 4 (Llama-2, 4-bit weights, groups of 128)"

_FIGURES = (
    # Chapter 03: the serving system.
    PublishedFigure(
        "vllm-prior-usage-low",
        "Share of KV-cache memory holding token states in earlier serving systems (lowest)",
        0.204,
        "",
        "vllm-paper",
        "§1 and Fig. 2",
    ),
    PublishedFigure(
        "vllm-prior-usage-high",
        "Share of KV-cache memory holding token states in earlier serving systems (highest)",
        0.382,
        "",
        "vllm-paper",
        "§1 and Fig. 2",
    ),
    PublishedFigure(
        "vllm-usage",
        "Share of KV-cache memory holding token states in vLLM",
        0.963,
        "",
        "vllm-paper",
        "Fig. 2",
    ),
    PublishedFigure(
        "leviathan-speedup-low",
        "Speculative decoding speed-up on T5-XXL (low end)",
        2.0,
        "",
        "leviathan-2023",
        "abstract",
    ),
    PublishedFigure(
        "leviathan-speedup-high",
        "Speculative decoding speed-up on T5-XXL (high end)",
        3.0,
        "",
        "leviathan-2023",
        "abstract",
    ),
    PublishedFigure(
        "chen-speedup-low",
        "Speculative sampling speed-up on Chinchilla 70B (low end)",
        2.0,
        "",
        "chen-2023",
        "abstract",
    ),
    PublishedFigure(
        "chen-speedup-high",
        "Speculative sampling speed-up on Chinchilla 70B (high end)",
        2.5,
        "",
        "chen-2023",
        "abstract",
    ),
    PublishedFigure(
        "mtp-acceptance-low",
        "DeepSeek-V3: acceptance rate of the second token its MTP module predicts (low)",
        0.85,
        "",
        "deepseek-v3-report",
        "§5.4.3",
    ),
    PublishedFigure(
        "mtp-acceptance-high",
        "DeepSeek-V3: acceptance rate of the second token its MTP module predicts (high)",
        0.90,
        "",
        "deepseek-v3-report",
        "§5.4.3",
    ),
    PublishedFigure(
        "mtp-speedup",
        "DeepSeek-V3: decoding speed-up from speculating with its MTP module",
        1.8,
        "",
        "deepseek-v3-report",
        "§5.4.3",
        "Batch size and hardware not stated.",
    ),
    # Chapter 05: DeepSeek's production service, 2025-02-27 12:00 to 2025-02-28 12:00 (UTC+8).
    PublishedFigure(
        "deepseek-gpu-hour",
        "DeepSeek's assumed lease price of one H800",
        2.0,
        "USD/h",
        "deepseek-infra-2025",
        "Statistics of DeepSeek's Online Service",
    ),
    PublishedFigure(
        "deepseek-prefill-node-throughput",
        "DeepSeek-V3/R1: input tokens per second per 8-GPU H800 node in prefill (cache hits "
        "included)",
        73.7e3,
        "tokens/s",
        "deepseek-infra-2025",
        "Statistics of DeepSeek's Online Service",
    ),
    PublishedFigure(
        "deepseek-decode-node-throughput",
        "DeepSeek-V3/R1: output tokens per second per 8-GPU H800 node in decode",
        14.8e3,
        "tokens/s",
        "deepseek-infra-2025",
        "Statistics of DeepSeek's Online Service",
    ),
    PublishedFigure(
        "deepseek-output-speed-low",
        "DeepSeek-V3/R1: average output speed per request (low)",
        20.0,
        "tokens/s",
        "deepseek-infra-2025",
        "Statistics of DeepSeek's Online Service",
    ),
    PublishedFigure(
        "deepseek-output-speed-high",
        "DeepSeek-V3/R1: average output speed per request (high)",
        22.0,
        "tokens/s",
        "deepseek-infra-2025",
        "Statistics of DeepSeek's Online Service",
    ),
    PublishedFigure(
        "deepseek-kv-length",
        "DeepSeek-V3/R1: average KV-cache length per output token",
        4989.0,
        "tokens",
        "deepseek-infra-2025",
        "Statistics of DeepSeek's Online Service",
    ),
    PublishedFigure(
        "deepseek-input-tokens",
        "DeepSeek-V3/R1: input tokens in 24 hours",
        608e9,
        "tokens",
        "deepseek-infra-2025",
        "Statistics of DeepSeek's Online Service",
    ),
    PublishedFigure(
        "deepseek-cached-input-tokens",
        "DeepSeek-V3/R1: input tokens in 24 hours that hit the on-disk KV cache",
        342e9,
        "tokens",
        "deepseek-infra-2025",
        "Statistics of DeepSeek's Online Service",
    ),
    PublishedFigure(
        "deepseek-output-tokens",
        "DeepSeek-V3/R1: output tokens in 24 hours",
        168e9,
        "tokens",
        "deepseek-infra-2025",
        "Statistics of DeepSeek's Online Service",
    ),
    PublishedFigure(
        "deepseek-average-nodes",
        "DeepSeek-V3/R1: average number of 8-GPU H800 nodes serving over the 24 hours",
        226.75,
        "",
        "deepseek-infra-2025",
        "Statistics of DeepSeek's Online Service",
    ),
    PublishedFigure(
        "deepseek-scale-up-bandwidth",
        "DeepSeek's H800 cluster: NVLink bandwidth per GPU as the paper states it",
        160e9,
        "B/s",
        "deepseek-v3-report",
        "§3.2.2",
    ),
    PublishedFigure(
        "h100-p2p-write",
        "NVIDIA's p2pBandwidthLatencyTest on 8 H100 SXMs: unidirectional peer-to-peer write",
        376e9,
        "B/s",
        "mle-net",
        "NVLink section, p2pBandwidthLatencyTest matrix",
        "About 83% of NVLink 4's 450 GB/s per direction.",
    ),
    *(
        PublishedFigure(
            f"deepep-{kind}-ep{ep}",
            f"DeepEP low-latency {kind} of 128 tokens per GPU on H800s over 400 Gb/s "
            f"InfiniBand, {ep}-way expert parallelism",
            seconds,
            "s",
            "deepep",
            "docs/legacy.md, low-latency kernels with pure RDMA",
            "7168 hidden, top-8 experts, fp8 dispatch, bf16 combine.",
        )
        for kind, ep, seconds in (
            ("dispatch", 8, 77e-6),
            ("dispatch", 128, 192e-6),
            ("dispatch", 256, 194e-6),
            ("combine", 8, 114e-6),
            ("combine", 128, 369e-6),
            ("combine", 256, 360e-6),
        )
    ),
    # Chapter 04: what quantization costs in accuracy and buys in speed.
    *_table(
        "awq-llama-2-7b",
        "awq",
        _AWQ_T4,
        [
            ("fp16", "Llama-2-7B in fp16", 5.47),
            ("rtn", "Llama-2-7B, int4 round-to-nearest", 5.73),
            ("gptq", "Llama-2-7B, int4 GPTQ", 5.69),
            ("awq", "Llama-2-7B, int4 AWQ", 5.60),
        ],
    ),
    *_table(
        "awq-llama-2-13b",
        "awq",
        _AWQ_T4,
        [
            ("fp16", "Llama-2-13B in fp16", 4.88),
            ("rtn", "Llama-2-13B, int4 round-to-nearest", 4.98),
            ("gptq", "Llama-2-13B, int4 GPTQ", 4.98),
            ("awq", "Llama-2-13B, int4 AWQ", 4.97),
        ],
    ),
    *_table(
        "awq-llama-2-70b",
        "awq",
        _AWQ_T4,
        [
            ("fp16", "Llama-2-70B in fp16", 3.32),
            ("rtn", "Llama-2-70B, int4 round-to-nearest", 3.46),
            ("gptq", "Llama-2-70B, int4 GPTQ", 3.42),
            ("awq", "Llama-2-70B, int4 AWQ", 3.41),
        ],
    ),
    *_table(
        "gptq-opt-175b",
        "gptq",
        "Table 3 (OPT-175B, per-row quantization)",
        [
            ("fp16", "OPT-175B in fp16", 8.34),
            ("gptq4", "OPT-175B, 4-bit GPTQ", 8.37),
            ("rtn4", "OPT-175B, 4-bit round-to-nearest", 10.54),
            ("gptq3", "OPT-175B, 3-bit GPTQ", 8.68),
        ],
    ),
    *_table(
        "qlora-mmlu",
        "qlora",
        "Table 4 (mean 5-shot MMLU of LLaMA 7B-65B fine-tuned with LoRA)",
        [
            ("bf16", "bf16 base weights", 53.0),
            ("nf4", "nf4 base weights with double quantization", 53.1),
            ("fp4", "fp4 base weights", 52.2),
        ],
        what="MMLU accuracy, percent",
        decimals=1,
    ),
    *_table(
        "qlora-pile",
        "qlora",
        "Table 2 (Pile Common Crawl, mean over 125M-13B models)",
        [
            ("nf4", "nf4 with double quantization", 27.41),
            ("fp4", "fp4 (E2M1)", 31.07),
            ("int4", "int4", 34.34),
        ],
        what="perplexity",
    ),
    *_table(
        "quarot-llama-2-70b",
        "quarot",
        "Tables 1, 3 and 4 (Llama-2-70B)",
        [
            ("fp16", "fp16", 3.32),
            ("w4a4", "weights, activations and KV cache in 4 bits (per channel and token)", 3.79),
            ("w4a4-g128", "QuaRot-128G: 4 bits in groups of 128", 3.61),
            ("int8-rtn", "8 bits throughout, round-to-nearest", 3.33),
        ],
    ),
    PublishedFigure(
        "quarot-abstract-v1-loss",
        "QuaRot's first abstract: largest perplexity loss at 4 bits (groups of 128)",
        0.29,
        "",
        "quarot",
        "abstract of arXiv v1",
        "Later versions' abstracts give 0.47, the per-channel configuration.",
    ),
    PublishedFigure(
        "smoothquant-pytorch-speedup",
        "SmoothQuant W8A8 speed-up over fp16 in PyTorch (OPT-30B, 256 tokens)",
        1.51,
        "",
        "smoothquant",
        "§5.3 and Fig. 8",
        "LLM.int8() is almost always slower than fp16 in the same measurement.",
    ),
    PublishedFigure(
        "smoothquant-ft-speedup",
        "SmoothQuant W8A8 speed-up over fp16 inside FasterTransformer (up to)",
        1.56,
        "",
        "smoothquant",
        "§5.3 and Fig. 9",
    ),
    PublishedFigure(
        "t5-ffn-overflow",
        "T5-base fine-tuned in fp16: the FFN output that overflowed",
        66246.3906,
        "",
        "hf-transformers-5651",
        "issue description",
    ),
    PublishedFigure(
        "kurtic-evaluations",
        "Evaluations behind Kurtic et al.'s study of quantized Llama-3.1 (8B, 70B, 405B)",
        500e3,
        "",
        "kurtic-2025",
        "abstract",
        "Over half a million evaluations, academic benchmarks and real-world tasks.",
    ),
    PublishedFigure(
        "kurtic-int8-loss-low",
        "Llama-3.1, int8 weights and activations, carefully tuned: accuracy lost (low end)",
        0.01,
        "",
        "kurtic-2025",
        "abstract",
    ),
    PublishedFigure(
        "kurtic-int8-loss-high",
        "Llama-3.1, int8 weights and activations, carefully tuned: accuracy lost (high end)",
        0.03,
        "",
        "kurtic-2025",
        "abstract",
    ),
    PublishedFigure(
        "llm-int8-outlier-threshold",
        "Model size from which plain 8-bit quantization breaks down (emergent outliers)",
        6.7e9,
        "",
        "llm-int8",
        "§1",
    ),
)

PUBLISHED = Registry("published", _FIGURES)


def published(name: str | PublishedFigure) -> PublishedFigure:
    """The published figure called ``name`` (``"awq-llama-2-70b-awq"``, ...)."""
    return PUBLISHED.get(name, PublishedFigure)


def published_figures() -> tuple[PublishedFigure, ...]:
    """Every catalogued published figure."""
    return PUBLISHED.all()
