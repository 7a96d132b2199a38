"""Bibliography of the catalogs: every figure in them cites one of these keys.

``verified`` is True where the figure was checked against a copy of the source (marked (V) in the
team's research notes) and False where only the vendor's canonical URL is known.  Keys are stable:
catalog entries, the book and the docs refer to them.
"""

from __future__ import annotations

from dataclasses import dataclass

from content.physics._lookup import Registry


@dataclass(frozen=True)
class Source:
    """A datasheet, paper, or page that a catalog figure comes from."""

    key: str
    title: str
    url: str
    verified: bool

    @property
    def name(self) -> str:
        return self.key


def _s(key: str, title: str, url: str, verified: bool) -> Source:
    return Source(key, title, url, verified)


_GH = "https://github.com/"
_HF = "https://huggingface.co/"

_SOURCES = (
    # Vendor datasheets and product pages.
    _s(
        "nv-v100",
        "NVIDIA V100 Tensor Core GPU datasheet",
        "https://images.nvidia.com/content/technologies/volta/pdf/"
        "volta-v100-datasheet-update-us-1165301-r5.pdf",
        False,
    ),
    _s(
        "nv-a100",
        "NVIDIA A100 Tensor Core GPU datasheet",
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
        False,
    ),
    _s(
        "nv-h100",
        "NVIDIA H100 Tensor Core GPU product page and Hopper whitepaper",
        "https://www.nvidia.com/en-us/data-center/h100/",
        False,
    ),
    _s(
        "nv-hopper-tuning",
        "NVIDIA Hopper tuning guide",
        "https://docs.nvidia.com/cuda/hopper-tuning-guide/index.html",
        False,
    ),
    _s(
        "nv-h100-pcie-brief",
        "NVIDIA H100 PCIe product brief PB-11133-001",
        "https://www.nvidia.com/en-us/data-center/h100/",
        True,
    ),
    _s(
        "nv-h200",
        "NVIDIA H200 Tensor Core GPU product page",
        "https://www.nvidia.com/en-us/data-center/h200/",
        False,
    ),
    _s(
        "nv-b200",
        "NVIDIA HGX and DGX B200 datasheets",
        "https://www.nvidia.com/en-us/data-center/hgx/",
        False,
    ),
    _s(
        "nv-l4",
        "NVIDIA L4 Tensor Core GPU product page",
        "https://www.nvidia.com/en-us/data-center/l4/",
        False,
    ),
    _s(
        "nv-t4",
        "NVIDIA T4 Tensor Core GPU datasheet",
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/"
        "t4-tensor-core-datasheet-951643.pdf",
        False,
    ),
    _s(
        "nv-a10",
        "NVIDIA A10 Tensor Core GPU datasheet",
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/a10-datasheet.pdf",
        False,
    ),
    _s(
        "nv-ada",
        "NVIDIA Ada Lovelace GPU architecture whitepaper (RTX 4090)",
        "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf",
        False,
    ),
    _s(
        "nv-volta-whitepaper",
        "NVIDIA Tesla V100 GPU architecture whitepaper (Volta)",
        "https://images.nvidia.com/content/volta-architecture/pdf/volta-architecture-whitepaper.pdf",
        False,
    ),
    _s(
        "nv-turing-whitepaper",
        "NVIDIA Turing GPU architecture whitepaper",
        "https://images.nvidia.com/aem-dam/en-zz/Solutions/design-visualization/technologies/"
        "turing-architecture/NVIDIA-Turing-Architecture-Whitepaper.pdf",
        False,
    ),
    _s(
        "nv-ampere-whitepaper",
        "NVIDIA A100 Tensor Core GPU architecture whitepaper (Ampere GA100)",
        "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/"
        "nvidia-ampere-architecture-whitepaper.pdf",
        False,
    ),
    _s(
        "nv-ga102-whitepaper",
        "NVIDIA Ampere GA102 GPU architecture whitepaper (A10)",
        "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf",
        False,
    ),
    _s(
        "nv-hopper-whitepaper",
        "NVIDIA H100 Tensor Core GPU architecture whitepaper (Hopper)",
        "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper",
        False,
    ),
    _s(
        "cuda-guide-cc",
        "NVIDIA CUDA C++ Programming Guide: technical specifications per compute capability",
        "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html"
        "#features-and-technical-specifications",
        False,
    ),
    # Device-reported memory capacities (nvidia-smi / rocm-smi memory.total).
    _s(
        "modal-pr-2797",
        "modal-labs/modal-client PR #2797: nvidia-smi memory totals (H100 81559 MiB, A100 80 GB "
        "81920 MiB, A100 40 GB 40960 MiB, A10 23028 MiB, L4 23034 MiB, T4 15360 MiB)",
        _GH + "modal-labs/modal-client/pull/2797",
        True,
    ),
    _s(
        "nccl-issue-1264",
        "NVIDIA/nccl issue #1264: nvidia-smi of an HGX H100 SXM node (81559MiB per GPU)",
        _GH + "NVIDIA/nccl/issues/1264",
        True,
    ),
    _s(
        "trtllm-issue-10278",
        "NVIDIA/TensorRT-LLM issue #10278: nvidia-smi of an 8x B200 node (183359MiB per GPU)",
        _GH + "NVIDIA/TensorRT-LLM/issues/10278",
        True,
    ),
    _s(
        "smi-public-logs",
        "nvidia-smi / rocm-smi memory totals as they appear in many public logs (H200 143771MiB, "
        "RTX 4090 24564MiB, MI300X 205822885888 B); no vendor page publishes them",
        "https://docs.nvidia.com/deploy/nvidia-smi/index.html",
        False,
    ),
    _s(
        "amd-mi300x",
        "AMD Instinct MI300X accelerator product page",
        "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html",
        False,
    ),
    _s(
        "amd-mi325x",
        "AMD Instinct MI325X accelerator product page",
        "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html",
        False,
    ),
    _s(
        "rocm-gpu-specs",
        "AMD ROCm documentation: GPU hardware specifications",
        "https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html",
        True,
    ),
    _s(
        "mi300x-vs-h200",
        "alpharomercoma/MI300X-vs-H200, METHODOLOGY.md (spec table)",
        _GH + "alpharomercoma/MI300X-vs-H200",
        True,
    ),
    _s(
        "gc-tpu-v4",
        "Google Cloud TPU v4 documentation",
        "https://cloud.google.com/tpu/docs/v4",
        True,
    ),
    _s(
        "gc-tpu-v5e",
        "Google Cloud TPU v5e documentation",
        "https://cloud.google.com/tpu/docs/v5e",
        True,
    ),
    _s(
        "gc-tpu-v5p",
        "Google Cloud TPU v5p documentation",
        "https://cloud.google.com/tpu/docs/v5p",
        True,
    ),
    _s(
        "amd-epyc-9654",
        "AMD EPYC 9654 processor product page",
        "https://www.amd.com/en/products/processors/server/epyc/"
        "4th-generation-9004-and-8004-series/amd-epyc-9654.html",
        False,
    ),
    _s(
        "intel-xeon-8480",
        "Intel ARK: Xeon Platinum 8480+ processor",
        "https://www.intel.com/content/www/us/en/products/sku/231746/"
        "intel-xeon-platinum-8480-processor-105m-cache-2-00-ghz/specifications.html",
        False,
    ),
    _s(
        "llama-cpp-16569",
        "llama.cpp discussion 16569 (EPYC memory bandwidth)",
        _GH + "ggml-org/llama.cpp/discussions/16569",
        True,
    ),
    # Books, guides and measurement repositories.
    _s(
        "sb-gpus",
        "Austin et al., How to Scale Your Model: How to Think About GPUs",
        "https://jax-ml.github.io/scaling-book/gpus/",
        True,
    ),
    _s(
        "sb-tpus",
        "Austin et al., How to Scale Your Model: How to Think About TPUs",
        "https://jax-ml.github.io/scaling-book/tpus/",
        True,
    ),
    _s(
        "sb-sharding",
        "Austin et al., How to Scale Your Model: Sharded Matrices",
        "https://jax-ml.github.io/scaling-book/sharding/",
        True,
    ),
    _s(
        "sb-applied-inference",
        "Austin et al., How to Scale Your Model: Serving LLaMA",
        "https://jax-ml.github.io/scaling-book/applied-inference/",
        True,
    ),
    _s(
        "mle-accel",
        "Bekman, Machine Learning Engineering: accelerators",
        _GH + "stas00/ml-engineering/blob/master/compute/accelerator/README.md",
        True,
    ),
    _s(
        "mle-net",
        "Bekman, Machine Learning Engineering: network",
        _GH + "stas00/ml-engineering/blob/master/network/README.md",
        True,
    ),
    _s(
        "mle-inference",
        "Bekman, Machine Learning Engineering: inference",
        _GH + "stas00/ml-engineering/blob/master/inference/README.md",
        True,
    ),
    _s(
        "glenn-lockwood",
        "Glenn Lockwood, processor notes: H100 and A100",
        "https://glennklockwood.com/garden/processors/h100",
        True,
    ),
    _s(
        "databricks-inference",
        "Databricks: LLM Inference Performance Engineering: Best Practices (2023)",
        "https://www.databricks.com/blog/llm-inference-performance-engineering-best-practices",
        True,
    ),
    _s(
        "rrze-gpu-benches",
        "RRZE-HPC/gpu-benches (latency, L2 and memory bandwidth measurements)",
        _GH + "RRZE-HPC/gpu-benches",
        True,
    ),
    _s(
        "markdewing-latency",
        "markdewing/AI_kernels, latency/README.md",
        _GH + "markdewing/AI_kernels/blob/main/latency/README.md",
        True,
    ),
    _s(
        "chips-and-cheese-h100",
        "Chips and Cheese: Nvidia's H100: Funny L2, and Tons of Bandwidth",
        "https://chipsandcheese.com/p/nvidias-h100-funny-l2-and-tons-of-bandwidth",
        True,
    ),
    _s(
        "mlperf-h200-system",
        "MLPerf Inference v4.1 NVIDIA H200-SXM-141GBx8 system description",
        _GH + "mlcommons/inference_results_v4.1",
        True,
    ),
    _s(
        "gpu-catalog-hf",
        "RajBhope/gpu-runtime-predictor gpu_catalog.json (third-party)",
        _HF + "RajBhope/gpu-runtime-predictor",
        True,
    ),
    _s(
        "pci-sig",
        "PCI-SIG PCI Express base specifications (x16 rate derived from GT/s and encoding)",
        "https://pcisig.com/specifications",
        False,
    ),
    _s(
        "ieee-802-3",
        "IEEE 802.3 Ethernet standard",
        "https://standards.ieee.org/ieee/802.3/",
        False,
    ),
    # Serving systems, collectives and mixture-of-experts deployments (chapters 03-05).
    _s(
        "sglang-pr-2904",
        "sgl-project/sglang PR #2904: custom all-reduce latencies on 8x H100 (vLLM's and "
        "TensorRT-LLM's kernels)",
        _GH + "sgl-project/sglang/pull/2904",
        True,
    ),
    _s(
        "thakur-2005",
        "Thakur, Rabenseifner and Gropp, Optimization of Collective Communication Operations "
        "in MPICH, IJHPCA 19(1), 2005 (latency-bandwidth costs of ring and tree algorithms)",
        "https://doi.org/10.1177/1094342005051521",
        False,
    ),
    _s(
        "nccl-trees",
        "NVIDIA Technical Blog: Massively Scale Your Deep Learning Training with NCCL 2.4 "
        "(double binary trees)",
        "https://developer.nvidia.com/blog/massively-scale-deep-learning-training-nccl-2-4/",
        False,
    ),
    _s(
        "vllm-paper",
        "Kwon et al., Efficient Memory Management for Large Language Model Serving with "
        "PagedAttention (vLLM), SOSP 2023, arXiv:2309.06180",
        "https://arxiv.org/abs/2309.06180",
        True,
    ),
    _s(
        "leviathan-2023",
        "Leviathan, Kalman and Matias, Fast Inference from Transformers via Speculative "
        "Decoding, ICML 2023, arXiv:2211.17192",
        "https://arxiv.org/abs/2211.17192",
        True,
    ),
    _s(
        "chen-2023",
        "Chen et al., Accelerating Large Language Model Decoding with Speculative Sampling, "
        "arXiv:2302.01318",
        "https://arxiv.org/abs/2302.01318",
        True,
    ),
    _s(
        "deepep",
        "deepseek-ai/DeepEP, docs/legacy.md: expert-parallel dispatch and combine latencies on "
        "H800s with 400 Gb/s InfiniBand",
        _GH + "deepseek-ai/DeepEP/blob/main/docs/legacy.md",
        True,
    ),
    _s(
        "deepseek-api-2025",
        "DeepSeek API docs, Models & Pricing (deepseek-chat = DeepSeek-V3), standard prices from "
        "2025-02-08; copy in connorholly11/pwa-mobile-test docs/deepseek.md",
        "https://api-docs.deepseek.com/quick_start/pricing",
        True,
    ),
    _s(
        "deepseek-infra-2025",
        "DeepSeek, Day 6: DeepSeek-V3/R1 Inference System Overview (open-infra-index, "
        "statistics of 2025-02-27/28)",
        _GH + "deepseek-ai/open-infra-index/blob/main/202502OpenSourceWeek/"
        "day_6_one_more_thing_deepseekV3R1_inference_system_overview.md",
        True,
    ),
    # Numeric formats.
    _s(
        "ieee-754",
        "IEEE 754-2019 floating-point arithmetic",
        "https://standards.ieee.org/ieee/754/6210/",
        False,
    ),
    _s(
        "nv-tf32",
        "NVIDIA blog: TensorFloat-32 in the A100 GPU",
        "https://blogs.nvidia.com/blog/tensorfloat-32-precision-format/",
        False,
    ),
    _s(
        "google-bf16",
        "Google Cloud blog: BFloat16, the secret to high performance on Cloud TPUs",
        "https://cloud.google.com/blog/products/ai-machine-learning/"
        "bfloat16-the-secret-to-high-performance-on-cloud-tpus",
        False,
    ),
    _s(
        "fp8-paper",
        "Micikevicius et al., FP8 Formats for Deep Learning, arXiv:2209.05433",
        "https://arxiv.org/abs/2209.05433",
        False,
    ),
    _s(
        "ocp-ofp8",
        "Open Compute Project 8-bit Floating Point Specification (OFP8) rev 1.0, 2023",
        "https://www.opencompute.org/documents/ocp-8-bit-floating-point-specification-ofp8-"
        "revision-1-0-2023-12-01-pdf-1",
        False,
    ),
    _s(
        "fp8-fnuz",
        "Noune et al., 8-bit Numerical Formats for Deep Neural Networks, arXiv:2206.02915 "
        "(the FNUZ variants AMD's MI300 implements)",
        "https://arxiv.org/abs/2206.02915",
        False,
    ),
    _s(
        "ocp-mx",
        "OCP Microscaling Formats (MX) specification v1.0",
        "https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf",
        False,
    ),
    _s(
        "qlora",
        "Dettmers et al., QLoRA, arXiv:2305.14314 (NF4 codebook)",
        "https://arxiv.org/abs/2305.14314",
        True,
    ),
    _s(
        "gptq",
        "Frantar et al., GPTQ: Accurate Post-Training Quantization for Generative Pre-trained "
        "Transformers, arXiv:2210.17323",
        "https://arxiv.org/abs/2210.17323",
        True,
    ),
    _s(
        "awq",
        "Lin et al., AWQ: Activation-aware Weight Quantization for LLM Compression and "
        "Acceleration, arXiv:2306.00978",
        "https://arxiv.org/abs/2306.00978",
        True,
    ),
    _s(
        "smoothquant",
        "Xiao et al., SmoothQuant: Accurate and Efficient Post-Training Quantization for Large "
        "Language Models, ICML 2023, arXiv:2211.10438",
        "https://arxiv.org/abs/2211.10438",
        True,
    ),
    _s(
        "quarot",
        "Ashkboos et al., QuaRot: Outlier-Free 4-Bit Inference in Rotated LLMs, arXiv:2404.00456",
        "https://arxiv.org/abs/2404.00456",
        True,
    ),
    _s(
        "hf-transformers-5651",
        "huggingface/transformers issue #5651: T5 fp16 overflow in forward (fine-tuning)",
        _GH + "huggingface/transformers/issues/5651",
        True,
    ),
    _s(
        "kurtic-2025",
        'Kurtic et al., "Give Me BF16 or Give Me Death"? Accuracy-Performance Trade-Offs in '
        "LLM Quantization, ACL 2025, arXiv:2411.02355",
        "https://arxiv.org/abs/2411.02355",
        True,
    ),
    _s(
        "vllm-fp8-kv-docs",
        "vLLM documentation: Quantized KV Cache (fp8 E4M3 caches, scale calibration, no "
        "latency gain without fused dequantization in attention)",
        "https://docs.vllm.ai/en/latest/features/quantization/quantized_kvcache/",
        True,
    ),
    _s(
        "gptqmodel-config",
        "ModelCloud/GPTQModel, gptqmodel/quantization/config.py (QuantizeConfig defaults: "
        "group_size 128, sym True, lm_head False)",
        _GH + "ModelCloud/GPTQModel/blob/main/gptqmodel/quantization/config.py",
        True,
    ),
    _s(
        "autogptq-config",
        "AutoGPTQ, auto_gptq/quantization/config.py (BaseQuantizeConfig: sym True; the gptq "
        "checkpoint format packs qzeros per group)",
        _GH + "AutoGPTQ/AutoGPTQ/blob/main/auto_gptq/quantization/config.py",
        True,
    ),
    _s(
        "autoawq",
        "casper-hansen/AutoAWQ README and examples (quant_config zero_point True, q_group_size "
        "128, w_bit 4; decoder linear layers only)",
        _GH + "casper-hansen/AutoAWQ",
        True,
    ),
    _s(
        "hf-bnb-docs",
        "Hugging Face transformers, bitsandbytes integration (the output head and embeddings "
        "stay unquantized)",
        "https://huggingface.co/docs/transformers/main/en/quantization/bitsandbytes",
        False,
    ),
    _s(
        "nvfp4-blog",
        "NVIDIA Technical Blog: Introducing NVFP4 for Efficient and Accurate Low-Precision "
        "Inference (16-element blocks, E4M3 scales, one fp32 scale per tensor)",
        "https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-and-accurate-low-"
        "precision-inference/",
        False,
    ),
    _s(
        "llm-int8",
        "Dettmers et al., LLM.int8(), arXiv:2208.07339",
        "https://arxiv.org/abs/2208.07339",
        True,
    ),
    # Model configurations.
    _s(
        "hf-llama-2-7b",
        "meta-llama/Llama-2-7b-hf config.json",
        _HF + "meta-llama/Llama-2-7b-hf/blob/main/config.json",
        True,
    ),
    _s(
        "hf-llama-2-13b",
        "meta-llama/Llama-2-13b-hf config.json",
        _HF + "meta-llama/Llama-2-13b-hf/blob/main/config.json",
        True,
    ),
    _s(
        "hf-llama-2-70b",
        "meta-llama/Llama-2-70b-hf config.json",
        _HF + "meta-llama/Llama-2-70b-hf/blob/main/config.json",
        True,
    ),
    _s(
        "hf-llama-3-8b",
        "meta-llama/Meta-Llama-3-8B config.json",
        _HF + "meta-llama/Meta-Llama-3-8B/blob/main/config.json",
        True,
    ),
    _s(
        "hf-llama-3-70b",
        "meta-llama/Meta-Llama-3-70B config.json",
        _HF + "meta-llama/Meta-Llama-3-70B/blob/main/config.json",
        True,
    ),
    _s(
        "hf-llama-3.1-405b",
        "meta-llama/Llama-3.1-405B config.json",
        _HF + "meta-llama/Llama-3.1-405B/blob/main/config.json",
        True,
    ),
    _s(
        "hf-mistral-7b",
        "mistralai/Mistral-7B-v0.1 config.json",
        _HF + "mistralai/Mistral-7B-v0.1/blob/main/config.json",
        True,
    ),
    _s(
        "hf-mixtral-8x7b",
        "mistralai/Mixtral-8x7B-v0.1 config.json",
        _HF + "mistralai/Mixtral-8x7B-v0.1/blob/main/config.json",
        True,
    ),
    _s(
        "mixtral-announcement",
        "Mistral AI: Mixtral of experts (46.7B total, 12.9B active)",
        "https://mistral.ai/news/mixtral-of-experts/",
        True,
    ),
    # Usable memory: what the runtime reports, what it holds back, what a server budgets.
    _s(
        "insightface-v100-smi",
        "deepinsight/insightface recognition/arcface_paddle README_en.md: '8 NVIDIA Tesla V100 "
        "32G (32510MiB)', nvidia-smi's total under driver 450.80.02",
        _GH + "deepinsight/insightface/blob/master/recognition/arcface_paddle/README_en.md",
        True,
    ),
    _s(
        "thamada-devicequery",
        "thamada/nvidia-smi: CUDA deviceQuery logs, 'Total amount of global memory' (H100 SXM "
        "85,045,477,376 B; A100 SXM4 80 GB 85,100,068,864 B; L4 23,570,219,008 B)",
        _GH + "thamada/nvidia-smi",
        True,
    ),
    _s(
        "achatbot-modal-logs",
        "ai-bot-pro/achatbot deploy/modal/src/llm/vllm/vlm/skywork_r1v.py: PyTorch device "
        "properties on Modal (H200 total_memory=143156MB, B200 total_memory=182642MB)",
        _GH + "ai-bot-pro/achatbot/blob/main/deploy/modal/src/llm/vllm/vlm/skywork_r1v.py",
        True,
    ),
    _s(
        "pytorch-pr-86509",
        "pytorch/pytorch PR #86509: CUDA_MODULE_LOADING=LAZY by default; the CUDA context of a "
        "PyTorch process takes 287,047,680 B lazily loaded against 666,632,192 B eagerly",
        _GH + "pytorch/pytorch/pull/86509",
        True,
    ),
    _s(
        "vllm-cache-config",
        "vLLM CacheConfig.gpu_memory_utilization: 'the fraction of GPU memory to be used for the "
        "model executor', default 0.9 (0.92 in the newest releases)",
        _GH + "vllm-project/vllm/blob/main/vllm/config/cache.py",
        True,
    ),
    _s(
        "vllm-pr-10511",
        "vllm-project/vllm PR #10511, memory profiling overhauled: the profiling log of "
        "Meta-Llama-3-8B on one H100 80 GB (total_gpu_memory 79.22 GiB, utilization 0.90, "
        "71.29 GiB usable, weights 14.96 GiB, non_torch_memory 1.79 GiB, PyTorch activation "
        "peak 1.26 GiB, available_kv_cache_memory 53.29 GiB) and at tensor parallelism 2 "
        "(weights 7.48 GiB, non_torch_memory 3.58 GiB, activation peak 1.26 GiB)",
        _GH + "vllm-project/vllm/pull/10511",
        True,
    ),
    # Deployed quantized checkpoints: which tensors stay in 16 bits.
    _s(
        "llm-compressor-fp8-70b",
        "comaniac/Meta-Llama-3-70B-Instruct-FP8 and Infermatic/Llama-3.3-70B-Instruct-FP8-Dynamic "
        "config.json: quant_method fp8 / compressed-tensors, targets Linear, ignored "
        "['lm_head']; the embedding is not a Linear layer and stays in bf16",
        _HF + "comaniac/Meta-Llama-3-70B-Instruct-FP8/blob/main/config.json",
        True,
    ),
    _s(
        "nvidia-fp4-checkpoints",
        "NVIDIA Llama-3.1-405B-Instruct-FP4 model card (ModelOpt): 'Only the weights and "
        "activations of the linear operators within transformers blocks are quantized'; "
        "ModelOpt NVFP4 hf_quant_config.json exclude_modules ['lm_head']",
        _HF + "nvidia/Llama-3.1-405B-Instruct-FP4",
        True,
    ),
    _s(
        "vllm-batch-defaults",
        "vLLM EngineArgs.get_batch_defaults (vllm/engine/arg_utils.py, from vllm-project/vllm "
        "PR #16158): default max_num_seqs 1024 for the OpenAI server on a GPU whose total "
        "memory is at least 70 GiB and whose name does not contain 'a100', else 256",
        _GH + "vllm-project/vllm/blob/main/vllm/engine/arg_utils.py",
        True,
    ),
    _s(
        "vllm-gpu-worker",
        "vLLM v1 GPU worker: requested_memory = total_memory x gpu_memory_utilization; weights, "
        "activations, CUDA graphs and KV cache are budgeted inside it",
        _GH + "vllm-project/vllm/blob/main/vllm/v1/worker/gpu_worker.py",
        True,
    ),
    # Achieved fractions of peak: measured bandwidths and matmul rates.
    _s(
        "azure-ai-benchmarks",
        "Azure AI benchmarking guide, results for ND A100 v4, ND H100 v5 and ND H200 v5: "
        "cuBLASLt GEMM by size and HBM STREAM (copy, mul, add, triad, dot)",
        _GH + "Azure/AI-benchmarking-guide/tree/main/Azure_Results",
        True,
    ),
    _s(
        "xla-matmul-table",
        "OpenXLA GPU cost model, default matmul performance table for sm_90 (H100 SXM), bf16 "
        "(third_party/xla/xla/service/gpu/model/matmul_interpolator_data.h)",
        _GH + "tensorflow/tensorflow/blob/master/third_party/xla/xla/service/gpu/model/"
        "matmul_interpolator_data.h",
        True,
    ),
    _s(
        "fast-cu",
        "pranjalssh/fast.cu README: square bf16 matmul on an H100, cuBLAS 716 TFLOP/s at "
        "n = 4096 and 795 TFLOP/s at n = 8192",
        _GH + "pranjalssh/fast.cu",
        True,
    ),
    # The overhead regime: launching kernels and graphs.
    _s(
        "hta-launch-stats",
        "facebookresearch/HolisticTraceAnalysis, CUDA kernel launch statistics: 'the launch "
        "time on the CPU side is between 5-20 microseconds'",
        _GH + "facebookresearch/HolisticTraceAnalysis/blob/main/docs/source/features/"
        "cuda_kernel_launch_stats.rst",
        True,
    ),
    _s(
        "ocannl-488",
        "ahrefs/ocannl issue #488: measured launch costs (RTX 5070 Ti, CUDA 13.3): 6.4 us per "
        "launch with its sync, 2.65 us to enqueue, a CUDA graph 15 us plus 0.58 us per node",
        _GH + "ahrefs/ocannl/issues/488",
        True,
    ),
    _s(
        "llamacpp-6763",
        "ggml-org/llama.cpp issue #6763 (NVIDIA): CUDA graphs take Llama-2-7B Q4_K_M on an "
        "H100 PCIe from 143.35 to 163.83 tokens/s",
        _GH + "ggml-org/llama.cpp/issues/6763",
        True,
    ),
    _s(
        "cudalibrarysamples-57",
        "NVIDIA/CUDALibrarySamples issue #57: 2:4 sparse (cuSPARSELt) against dense (CUTLASS) "
        "fp16 4096x4096x4096 on an A100, 0.5458 against 0.6080 ms",
        _GH + "NVIDIA/CUDALibrarySamples/issues/57",
        True,
    ),
    _s(
        "cudalibrarysamples-203",
        "NVIDIA/CUDALibrarySamples issue #203: cuSPARSELt 8192x8192x8192 on an H100, about "
        "1.20-1.22x over dense",
        _GH + "NVIDIA/CUDALibrarySamples/issues/203",
        True,
    ),
    _s(
        "cudalibrarysamples-276",
        "NVIDIA/CUDALibrarySamples issue #276: a 2:4-sparse Llama-2-7B decodes about 12% slower "
        "than the dense model (RTX 4090)",
        _GH + "NVIDIA/CUDALibrarySamples/issues/276",
        True,
    ),
    _s(
        "nvbandwidth-24",
        "NVIDIA/nvbandwidth issue #24: host-device copies on an 8-GPU H100 server, 52.8 GB/s "
        "device to host and 35.2 GB/s host to device (SM copies)",
        _GH + "NVIDIA/nvbandwidth/issues/24",
        True,
    ),
    _s(
        "nvbandwidth-23",
        "NVIDIA/nvbandwidth issue #23: GH200 host-to-device copy over NVLink-C2C, 346 GB/s "
        "(copy engine)",
        _GH + "NVIDIA/nvbandwidth/issues/23",
        True,
    ),
    _s(
        "gpt-fast",
        "pytorch-labs/gpt-fast README: Llama-2-7B at batch 1 on an A100-80GB (power-limited to "
        "330 W), 104.9 tokens/s and 1397 GB/s in bf16; peak bandwidth about 1700 GB/s",
        _GH + "pytorch-labs/gpt-fast",
        True,
    ),
    _s(
        "trtllm-perf-0.6.1",
        "NVIDIA TensorRT-LLM, Performance of TensorRT-LLM (v0.6.1 docs/source/performance.md): "
        "output tokens/s of static batches (gptSessionBenchmark) by model, GPU, precision, "
        "batch, tensor parallelism, input and output length",
        _GH + "NVIDIA/TensorRT-LLM/blob/138f96d45f90b9667426f7c47297d8c06bafac73/"
        "docs/source/performance.md",
        True,
    ),
    _s(
        "pytorch-gpt-fast-blog",
        "PyTorch blog, Accelerating Generative AI with PyTorch II: GPT, Fast (eager start "
        "25.5 tokens/s, CPU-overhead bound)",
        "https://pytorch.org/blog/accelerating-generative-ai-2/",
        True,
    ),
    # Attention and the KV cache.
    _s(
        "hf-deepseek-v3",
        "deepseek-ai/DeepSeek-V3 config.json",
        _HF + "deepseek-ai/DeepSeek-V3/blob/main/config.json",
        True,
    ),
    _s(
        "deepseek-v3-report",
        "DeepSeek-AI, DeepSeek-V3 Technical Report, arXiv:2412.19437 (671B total, 37B "
        "activated; multi-head latent attention)",
        "https://arxiv.org/abs/2412.19437",
        True,
    ),
    _s(
        "mistral-7b-paper",
        "Jiang et al., Mistral 7B, arXiv:2310.06825 (sliding-window attention, W = 4096)",
        "https://arxiv.org/abs/2310.06825",
        True,
    ),
    # Prices (dated snapshots).
    _s(
        "lambda-2026-09",
        "Lambda instance pricing, transcribed 2026-09-20 (api-evangelist/lambda-labs)",
        _GH + "api-evangelist/lambda-labs",
        True,
    ),
    # Plausibility ranges (catalog/ranges.py).
    _s(
        "micikevicius-2018-mp",
        "Micikevicius et al., Mixed Precision Training, ICLR 2018, arXiv:1710.03740 (sec. 3.2, "
        "fig. 3: activation gradients of SSD lie far below 1; a loss scale of 8 sufficed)",
        "https://arxiv.org/abs/1710.03740",
        False,
    ),
    _s(
        "pytorch-gradscaler",
        "PyTorch torch.amp.GradScaler: dynamic loss scaling, init_scale 2**16, backoff 0.5",
        "https://pytorch.org/docs/stable/amp.html#gradient-scaling",
        True,
    ),
    _s(
        "data-receipts-2026-11",
        "datareceipts/data-receipts 109-gpu-pricing, retrieved 2026-11-09",
        _GH + "datareceipts/data-receipts",
        True,
    ),
    _s(
        "tg-prices-2026-09",
        "tgarg01/silybench-data gpu_prices.csv, checked 2026-09",
        _GH + "tgarg01/silybench-data",
        True,
    ),
    _s(
        "hyperstack-2026-08",
        "Hyperstack GPU pricing, transcribed 2026-08-26 (api-evangelist/nexgen-cloud)",
        _GH + "api-evangelist/nexgen-cloud",
        True,
    ),
)

SOURCES = Registry("source", _SOURCES)


def source(key: str | Source) -> Source:
    """The source with this key (case-insensitive); KeyError names close keys."""
    return SOURCES.get(key, Source)


def sources() -> tuple[Source, ...]:
    """Every source, in bibliography order."""
    return SOURCES.all()


def cite(entry: object) -> tuple[Source, ...]:
    """The distinct sources an entry's ``sources`` mapping refers to, in first-use order."""
    keys = dict.fromkeys(entry.sources.values())  # type: ignore[attr-defined]
    return tuple(source(key) for key in keys)
