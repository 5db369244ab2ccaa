"""Every source the project cites, once: papers, model cards, configs, code, threads and notes.

A claim names its source by key (``Rounded(..., source="touvron2023", locator="Table 2")``), a page
writes ``<!-- cite:touvron2023 Table 2 -->``, and code and tests write ``[cite: touvron2023, Table 2]``
in a comment. An unknown key is an error: at import for a claim, at build time for a page, and in
``tests/test_sources.py`` for a comment. The sources page (``docs/sources.md``) lists them all, each
under an anchor of its key (``sources.html#touvron2023``).

A web page that can change (a README, a model card, a thread) carries a permanent revision where one
is known (a commit's address), else the date it was read. A thread's title is GitHub's where we read
it; one that starts with "on" says what the thread is about. Plain Python (no SymPy).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

READ = "2026-11-23"  # when the pages without a permanent revision were read
# In a comment of the code or the tests: [cite: KEY] or [cite: KEY, where in it].
CITATION = re.compile(r"\[cite: ([a-z0-9][a-z0-9.-]*)(?:, [^\]]+)?\]")
CATEGORIES = {"paper": "Papers and books", "card": "Model cards, READMEs and announcements",
         "config": "Released configs", "code": "Code", "thread": "Issues, pull requests and answers",
         "note": "The five notes on BERT's size this project started from"}


class UnknownSource(LookupError):
    pass


@dataclass(frozen=True)
class Source:
    key: str
    category: str  # one of CATEGORIES
    authors: str
    title: str
    where: str
    year: int | None
    url: str | None  # None only for a note that gives no address
    revision: str = ""  # a permanent address of the version read (a commit), for a page that can change
    read: str = ""  # else the date it was read
    short: str = ""  # how a citation names it in a sentence; "Authors Year" by default

    def __post_init__(self) -> None:
        assert self.category in CATEGORIES, self.category
        assert re.fullmatch(r"[a-z0-9][a-z0-9.-]*", self.key), self.key
        assert self.url is None or self.url.startswith("https://"), self.url
        assert self.url is not None or self.category == "note", f"{self.key}: a link"
        assert self.category in ("paper", "note") or self.revision or self.read, f"{self.key}: a revision or a date"

    @property
    def label(self) -> str:
        return self.short or f"{self.authors} {self.year}"


def _paper(key: str, authors: str, title: str, where: str, year: int, url: str, short: str = "") -> Source:
    return Source(key, "paper", authors, title, where, year, url, short=short)


def _page(key: str, category: str, authors: str, title: str, where: str, year: int | None, url: str,
          revision: str = "", short: str = "") -> Source:
    return Source(key, category, authors, title, where, year, url, revision, "" if revision else READ, short)


def _thread(repository: str, number: int, title: str, year: int | None, path: str = "issues", opened_by: str = ""
            ) -> Source:
    """An issue or pull request on GitHub, named as GitHub names it (owner/name#number), with who opened it."""
    key = f"{repository.split('/')[1].lower()}-{number}"
    authors = f"{opened_by} and others" if opened_by else f"contributors to {repository}"
    return _page(key, "thread", authors, title, f"GitHub, {repository}", year,
                 f"https://github.com/{repository}/{path}/{number}", short=f"{repository}#{number}")


_SOURCES = (
    # -- papers and books ------------------------------------------------------------------------
    _paper("vaswani2017", "Vaswani et al.", "Attention Is All You Need", "NeurIPS 2017; arXiv:1706.03762", 2017,
           "https://arxiv.org/abs/1706.03762"),
    _paper("radford2019", "Radford et al.", "Language Models are Unsupervised Multitask Learners", "OpenAI", 2019,
           "https://cdn.openai.com/better-language-models/language_models_are_unsupervised_multitask_learners.pdf"),
    _paper("devlin2019", "Devlin et al.", "BERT: Pre-training of Deep Bidirectional Transformers for Language "
           "Understanding", "NAACL-HLT 2019; arXiv:1810.04805 (2018)", 2019, "https://arxiv.org/abs/1810.04805"),
    _paper("lan2020", "Lan et al.", "ALBERT: A Lite BERT for Self-supervised Learning of Language Representations",
           "ICLR 2020; arXiv:1909.11942 (2019)", 2020, "https://arxiv.org/abs/1909.11942"),
    _paper("sanh2019", "Sanh et al.", "DistilBERT, a distilled version of BERT: smaller, faster, cheaper and lighter",
           "arXiv:1910.01108", 2019, "https://arxiv.org/abs/1910.01108"),
    _paper("raffel2020", "Raffel et al.", "Exploring the Limits of Transfer Learning with a Unified Text-to-Text "
           "Transformer", "JMLR 21(140); arXiv:1910.10683 (2019)", 2020, "https://arxiv.org/abs/1910.10683"),
    _paper("kaplan2020", "Kaplan et al.", "Scaling Laws for Neural Language Models", "arXiv:2001.08361", 2020,
           "https://arxiv.org/abs/2001.08361"),
    _paper("brown2020", "Brown et al.", "Language Models are Few-Shot Learners", "NeurIPS 2020; arXiv:2005.14165",
           2020, "https://arxiv.org/abs/2005.14165"),
    _paper("hoffmann2022", "Hoffmann et al.", "Training Compute-Optimal Large Language Models", "arXiv:2203.15556",
           2022, "https://arxiv.org/abs/2203.15556"),
    _paper("touvron2023", "Touvron et al.", "LLaMA: Open and Efficient Foundation Language Models",
           "arXiv:2302.13971", 2023, "https://arxiv.org/abs/2302.13971"),
    _paper("jiang2024", "Jiang et al.", "Mixtral of Experts", "arXiv:2401.04088", 2024,
           "https://arxiv.org/abs/2401.04088"),
    _paper("yang2024qwen2", "Yang et al.", "Qwen2 Technical Report", "arXiv:2407.10671", 2024,
           "https://arxiv.org/abs/2407.10671"),
    _paper("qwen2024qwen25", "Qwen Team", "Qwen2.5 Technical Report", "arXiv:2412.15115", 2024,
           "https://arxiv.org/abs/2412.15115"),
    _paper("yang2025qwen3", "Yang et al.", "Qwen3 Technical Report", "arXiv:2505.09388", 2025,
           "https://arxiv.org/abs/2505.09388"),
    _paper("gemma2024", "Gemma Team", "Gemma: Open Models Based on Gemini Research and Technology", "arXiv:2403.08295",
           2024, "https://arxiv.org/abs/2403.08295", short="Gemma Team 2024a"),
    _paper("gemma2-2024", "Gemma Team", "Gemma 2: Improving Open Language Models at a Practical Size",
           "arXiv:2408.00118", 2024, "https://arxiv.org/abs/2408.00118", short="Gemma Team 2024b"),
    _paper("gemma3-2025", "Gemma Team", "Gemma 3 Technical Report", "arXiv:2503.19786", 2025,
           "https://arxiv.org/abs/2503.19786", short="Gemma Team 2025"),
    _paper("abdin2024phi3", "Abdin et al.", "Phi-3 Technical Report: A Highly Capable Language Model Locally on Your "
           "Phone", "arXiv:2404.14219", 2024, "https://arxiv.org/abs/2404.14219"),
    _paper("abdin2024phi4", "Abdin et al.", "Phi-4 Technical Report", "arXiv:2412.08905", 2024,
           "https://arxiv.org/abs/2412.08905"),
    _paper("microsoft2025phi4mini", "Microsoft", "Phi-4-Mini Technical Report: Compact yet Powerful Multimodal "
           "Language Models via Mixture-of-LoRAs", "arXiv:2503.01743", 2025, "https://arxiv.org/abs/2503.01743"),
    _paper("openai2025gptoss", "OpenAI", "gpt-oss-120b & gpt-oss-20b Model Card", "arXiv:2508.10925", 2025,
           "https://arxiv.org/abs/2508.10925", short="OpenAI 2025"),
    _paper("deepseek2024v2", "DeepSeek-AI", "DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts "
           "Language Model", "arXiv:2405.04434", 2024, "https://arxiv.org/abs/2405.04434", short="DeepSeek-AI 2024a"),
    _paper("deepseek2024v3", "DeepSeek-AI", "DeepSeek-V3 Technical Report", "arXiv:2412.19437", 2024,
           "https://arxiv.org/abs/2412.19437", short="DeepSeek-AI 2024b"),
    _paper("pearce2024", "Pearce and Song", "Reconciling Kaplan and Chinchilla Scaling Laws", "arXiv:2406.12907",
           2024, "https://arxiv.org/abs/2406.12907"),
    _paper("jiang2023", "Jiang et al.", "Mistral 7B", "arXiv:2310.06825", 2023, "https://arxiv.org/abs/2310.06825"),
    _paper("chowdhery2022", "Chowdhery et al.", "PaLM: Scaling Language Modeling with Pathways", "arXiv:2204.02311",
           2022, "https://arxiv.org/abs/2204.02311"),
    _paper("narayanan2021", "Narayanan et al.", "Efficient Large-Scale Language Model Training on GPU Clusters Using "
           "Megatron-LM", "SC21; arXiv:2104.04473", 2021, "https://arxiv.org/abs/2104.04473"),
    _paper("shoeybi2019", "Shoeybi et al.", "Megatron-LM: Training Multi-Billion Parameter Language Models Using Model "
           "Parallelism", "arXiv:1909.08053", 2019, "https://arxiv.org/abs/1909.08053"),
    _paper("korthikanti2022", "Korthikanti et al.", "Reducing Activation Recomputation in Large Transformer Models",
           "arXiv:2205.05198", 2022, "https://arxiv.org/abs/2205.05198"),
    _paper("grattafiori2024", "Grattafiori et al.", "The Llama 3 Herd of Models", "arXiv:2407.21783", 2024,
           "https://arxiv.org/abs/2407.21783"),
    _paper("rajbhandari2020", "Rajbhandari et al.", "ZeRO: Memory Optimizations Toward Training Trillion Parameter "
           "Models", "SC20; arXiv:1910.02054 (2019)", 2020, "https://arxiv.org/abs/1910.02054"),
    _paper("kwon2023", "Kwon et al.", "Efficient Memory Management for Large Language Model Serving with "
           "PagedAttention", "SOSP 2023; arXiv:2309.06180", 2023, "https://arxiv.org/abs/2309.06180"),
    _paper("dettmers2022", "Dettmers et al.", "8-bit Optimizers via Block-wise Quantization",
           "ICLR 2022; arXiv:2110.02861 (2021)", 2022, "https://arxiv.org/abs/2110.02861", short="Dettmers et al. 2022"),
    _paper("dettmers2023", "Dettmers et al.", "QLoRA: Efficient Finetuning of Quantized LLMs",
           "NeurIPS 2023; arXiv:2305.14314", 2023, "https://arxiv.org/abs/2305.14314"),
    _paper("frantar2023", "Frantar et al.", "GPTQ: Accurate Post-Training Quantization for Generative Pre-trained "
           "Transformers", "ICLR 2023; arXiv:2210.17323 (2022)", 2023, "https://arxiv.org/abs/2210.17323"),
    _paper("lin2024awq", "Lin et al.", "AWQ: Activation-aware Weight Quantization for LLM Compression and "
           "Acceleration", "MLSys 2024; arXiv:2306.00978 (2023)", 2024, "https://arxiv.org/abs/2306.00978"),
    _paper("rouhani2023", "Rouhani et al.", "Microscaling Data Formats for Deep Learning", "arXiv:2310.10537", 2023,
           "https://arxiv.org/abs/2310.10537"),
    _page("bitsandbytes-code", "code", "the bitsandbytes authors", "bitsandbytes: bitsandbytes/optim/optimizer.py "
          "(8-bit states in blocks of 256, blocksize = 256; fp32 states below min_8bit_size = 4096 elements) and "
          "CHANGELOG.md (0.44.0: “The block size for all 8-bit optimizers has been reduced from 2048 to 256”)",
          "GitHub, bitsandbytes-foundation/bitsandbytes", 2026,
          "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/95f9af309d4d5793847169c39288dcd3fcbdf564/"
          "bitsandbytes/optim/optimizer.py",
          revision="https://github.com/bitsandbytes-foundation/bitsandbytes/tree/"
                   "95f9af309d4d5793847169c39288dcd3fcbdf564", short="bitsandbytes' code"),
    _page("transformers-quantizers", "code", "Hugging Face", "transformers: src/transformers/quantizers/base.py, "
          "get_keys_to_not_convert (“we may want to keep the lm_head in full precision”), the modules every "
          "quantizer of transformers leaves unquantized by default", "GitHub, huggingface/transformers", 2026,
          "https://github.com/huggingface/transformers/blob/v5.23.0/src/transformers/quantizers/base.py",
          revision="https://github.com/huggingface/transformers/tree/v5.23.0", short="transformers' quantizers"),
    _page("transformers-integrations", "code", "Hugging Face", "transformers 5.23.0: src/transformers/integrations/"
          "bitsandbytes.py (replace_with_bnb_linear: every nn.Linear and Conv1D), finegrained_fp8.py (FP8Linear, "
          "FP8Experts: a weight_scale_inv of ceil(out / 128) x ceil(in / 128)), fbgemm_fp8.py, awq.py, mxfp4.py, and "
          "quantizers/quantizers_utils.py (should_convert_module)", "GitHub, huggingface/transformers", 2026,
          "https://github.com/huggingface/transformers/tree/v5.23.0/src/transformers/integrations",
          revision="https://github.com/huggingface/transformers/tree/v5.23.0", short="transformers' integrations"),
    _page("bitsandbytes-4bit", "code", "the bitsandbytes authors", "bitsandbytes 0.50.2: bitsandbytes/functional.py "
          "(quantize_4bit: blocks of 64, an fp32 absmax each, double quantization in blocks of 256) and "
          "bitsandbytes/nn/modules.py (Params4bit, Int8Params: int8 with an fp32 SCB a row)",
          "GitHub, bitsandbytes-foundation/bitsandbytes", 2026,
          "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.50.2/bitsandbytes/functional.py",
          revision="https://github.com/bitsandbytes-foundation/bitsandbytes/tree/0.50.2",
          short="bitsandbytes' quantization"),
    _page("gptqmodel-code", "code", "ModelCloud", "GPTQModel: gptqmodel/nn_modules/qlinear/__init__.py "
          "(_register_gptq_buffers: qweight, qzeros, scales, g_idx, bias; AWQuantLinear)", "GitHub, ModelCloud/GPTQModel",
          2026, "https://github.com/ModelCloud/GPTQModel/blob/f4c327a17eb3e24524d5a97a3d682e3696ae6a28/"
          "gptqmodel/nn_modules/qlinear/__init__.py",
          revision="https://github.com/ModelCloud/GPTQModel/tree/f4c327a17eb3e24524d5a97a3d682e3696ae6a28",
          short="GPTQModel's QuantLinear"),
    _page("autogptq-code", "code", "the AutoGPTQ authors", "AutoGPTQ: auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py "
          "(QuantLinear's buffers)", "GitHub, AutoGPTQ/AutoGPTQ", 2025,
          "https://github.com/AutoGPTQ/AutoGPTQ/blob/9f7d37072917ab3a7545835f23e808294a542153/"
          "auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py",
          revision="https://github.com/AutoGPTQ/AutoGPTQ/tree/9f7d37072917ab3a7545835f23e808294a542153",
          short="AutoGPTQ's QuantLinear"),
    _page("autoawq-code", "code", "Casper Hansen and others", "AutoAWQ: awq/modules/linear/gemm.py (WQLinear_GEMM) "
          "and gemv.py (WQLinear_GEMV)", "GitHub, casper-hansen/AutoAWQ", 2025,
          "https://github.com/casper-hansen/AutoAWQ/blob/88e4c76b20755db275574e6a03c83c84ba3bece5/"
          "awq/modules/linear/gemm.py",
          revision="https://github.com/casper-hansen/AutoAWQ/tree/88e4c76b20755db275574e6a03c83c84ba3bece5",
          short="AutoAWQ's WQLinear"),
    _page("optimum-code", "code", "Hugging Face", "optimum: optimum/gptq/quantizer.py (convert_model: the linear "
          "maps of the blocks), utils.py (get_layers) and constants.py (BLOCK_PATTERNS)", "GitHub, huggingface/optimum",
          2026, "https://github.com/huggingface/optimum/blob/83c88b8fc51e791f263a954e3568e1d2a02aa003/"
          "optimum/gptq/quantizer.py",
          revision="https://github.com/huggingface/optimum/tree/83c88b8fc51e791f263a954e3568e1d2a02aa003",
          short="optimum's GPTQ"),
    _page("raschka2024", "paper", "Sebastian Raschka", "Build a Large Language Model (From Scratch)",
          "Manning, 2024; code in rasbt/LLMs-from-scratch", 2024, "https://github.com/rasbt/LLMs-from-scratch"),
    # -- model cards, READMEs and announcements --------------------------------------------------
    _page("bert-readme", "card", "Google Research", "BERT README: the list of released models",
          "GitHub, google-research/bert", 2018, "https://github.com/google-research/bert/blob/master/README.md",
          revision="https://github.com/google-research/bert/blob/eedf571/README.md", short="the BERT README"),
    _page("fairseq-roberta", "card", "Facebook AI Research", "RoBERTa README: pre-trained models",
          "GitHub, facebookresearch/fairseq", 2019,
          "https://github.com/facebookresearch/fairseq/blob/main/examples/roberta/README.md",
          short="fairseq's RoBERTa README"),
    _page("gpt2-readme", "card", "OpenAI", "gpt-2 README (the note that the original parameter counts were wrong)",
          "GitHub, openai/gpt-2", 2019, "https://github.com/openai/gpt-2/blob/master/README.md",
          revision="https://github.com/openai/gpt-2/blob/9b63575/README.md", short="the gpt-2 README"),
    _page("gpt2-developers", "card", "OpenAI", "gpt-2 DEVELOPERS.md (the download names 124M, 355M, 774M, 1558M)",
          "GitHub, openai/gpt-2", 2019, "https://github.com/openai/gpt-2/blob/master/DEVELOPERS.md",
          short="openai/gpt-2"),
    _page("t5-repository", "card", "Google Research", "text-to-text-transfer-transformer README: released checkpoints",
          "GitHub, google-research/text-to-text-transfer-transformer", 2019,
          "https://github.com/google-research/text-to-text-transfer-transformer", short="the T5 repository"),
    _page("wikipedia-t5", "card", "Wikipedia contributors", "T5 (language model)", "Wikipedia", None,
          "https://en.wikipedia.org/wiki/T5_(language_model)", short="Wikipedia"),
    _page("pythia-card", "card", "EleutherAI", "Pythia model cards: naming convention and parameter count",
          "Hugging Face, EleutherAI/pythia-12b-deduped", 2023, "https://huggingface.co/EleutherAI/pythia-12b-deduped",
          short="the Pythia model cards"),
    _page("llama2-card", "card", "Meta", "Llama 2 model card", "GitHub, meta-llama/llama, MODEL_CARD.md", 2023,
          "https://github.com/meta-llama/llama/blob/main/MODEL_CARD.md",
          revision="https://github.com/meta-llama/llama/blob/689c7f2/MODEL_CARD.md", short="the Llama 2 model card"),
    _page("llama3-card", "card", "Meta", "Llama 3 model card", "GitHub, meta-llama/llama3, MODEL_CARD.md", 2024,
          "https://github.com/meta-llama/llama3/blob/main/MODEL_CARD.md", short="the Llama 3 model card"),
    _page("qwen2-blog", "card", "Qwen Team", "Hello Qwen2 (release post, 7 June 2024)", "qwenlm.github.io", 2024,
          "https://qwenlm.github.io/blog/qwen2/", short="the Qwen2 release post"),
    _page("qwen15-moe-blog", "card", "Qwen Team", "Qwen1.5-MoE: Matching 7B Model Performance with 1/3 Activated "
          "Parameters (release post, 28 March 2024)", "qwenlm.github.io", 2024,
          "https://qwenlm.github.io/blog/qwen-moe/", short="the Qwen1.5-MoE release post"),
    _page("mistral-7b-announcement", "card", "Mistral AI", "Announcing Mistral 7B", "mistral.ai", 2023,
          "https://mistral.ai/news/announcing-mistral-7b/", short="Mistral AI 2023"),
    _page("mixtral-announcement", "card", "Mistral AI", "Mixtral of experts (11 December 2023)", "mistral.ai", 2023,
          "https://mistral.ai/news/mixtral-of-experts/", short="Mistral AI, December 2023"),
    _page("mixtral-8x22b-announcement", "card", "Mistral AI", "Cheaper, Better, Faster, Stronger (17 April 2024)",
          "mistral.ai", 2024, "https://mistral.ai/news/mixtral-8x22b/", short="Mistral AI, April 2024"),
    _page("mistral-docs-models", "card", "Mistral AI", "Platform docs: models.mdx",
          "GitHub, mistralai/platform-docs-public", None,
          "https://github.com/mistralai/platform-docs-public/blob/main/docs/getting-started/models.mdx",
          short="Mistral AI's platform docs"),
    _page("nvidia-ampere-in-depth", "card", "Ronny Krashinsky, Olivier Giroux, Stephen Jones, Nick Stam and "
          "Sridhar Ramaswamy (NVIDIA)", "NVIDIA Ampere Architecture In-Depth (14 May 2020): the A100's peak rates "
          "(Table 1, dense and with sparsity) and its 40 GB of HBM2 at 1555 GB/sec",
          "NVIDIA Technical Blog (read in a stored copy of the post)", 2020,
          "https://developer.nvidia.com/blog/nvidia-ampere-architecture-in-depth/", short="NVIDIA's A100 post"),
    Source("google-cloud-tpu-v5e", "card", "Google Cloud", "Cloud TPU documentation: TPU v5e (its “Key chip "
           "specifications”: peak bf16 compute per chip, HBM2 capacity and bandwidth)", "cloud.google.com", None,
           "https://cloud.google.com/tpu/docs/v5e", read="2026-11-26", short="Google Cloud's TPU v5e page"),
    # NVIDIA's two H100 documents, read in copies of NVIDIA's PDFs kept in a GitHub repository (the copy's commit is
    # the version read; NVIDIA's own pages for them are no fixed address).
    _page("nvidia-h100-pcie-brief", "card", "NVIDIA", "NVIDIA H100 PCIe GPU Product Brief, PB-11133-001_v02 "
          "(November 2022): Table 2, Memory Specifications (memory size, peak memory bandwidth)",
          "NVIDIA, document PB-11133-001_v02 (read in a copy of NVIDIA's PDF in GitHub, "
          "auldsyababua/og-ai-inference-research, docs/nvidia-manuals/H100-PCIe-Product-Brief-PB-11133.pdf)", 2022,
          "https://github.com/auldsyababua/og-ai-inference-research/blob/bc1a02f08695f53d8073b6ef225871de0f56e947/docs/nvidia-manuals/"
          "H100-PCIe-Product-Brief-PB-11133.pdf",
          revision="https://github.com/auldsyababua/og-ai-inference-research/tree/bc1a02f08695f53d8073b6ef225871de0f56e947",
          short="NVIDIA's H100 PCIe product brief"),
    _page("nvidia-h100-datasheet", "card", "NVIDIA", "NVIDIA H100 Tensor Core GPU Datasheet (SEP24): Technical "
          "Specifications, H100 SXM and H100 NVL (GPU memory, its bandwidth, Tensor Core rates with sparsity)",
          "NVIDIA, document 3440270 (read in a copy of NVIDIA's PDF in GitHub, auldsyababua/og-ai-inference-research, "
          "docs/nvidia-manuals/H100-Tensor-Core-GPU-Product-Brief.pdf)", 2024,
          "https://github.com/auldsyababua/og-ai-inference-research/blob/bc1a02f08695f53d8073b6ef225871de0f56e947/docs/nvidia-manuals/"
          "H100-Tensor-Core-GPU-Product-Brief.pdf",
          revision="https://github.com/auldsyababua/og-ai-inference-research/tree/bc1a02f08695f53d8073b6ef225871de0f56e947",
          short="NVIDIA's H100 datasheet"),
    _page("tensorrt-llm-h200-launch", "card", "NVIDIA", "H200 achieves nearly 12,000 tokens/sec on Llama2-13B with "
          "TensorRT-LLM (its section Latest HBM Memory: the H200's memory and bandwidth)",
          "GitHub, NVIDIA/TensorRT-LLM, docs/source/blogs/H200launch.md", 2023,
          "https://github.com/NVIDIA/TensorRT-LLM/blob/1555478c1b417a0b34de05209862ea5a2ab9add1/docs/source/blogs/"
          "H200launch.md",
          revision="https://github.com/NVIDIA/TensorRT-LLM/tree/1555478c1b417a0b34de05209862ea5a2ab9add1",
          short="NVIDIA's TensorRT-LLM post on the H200"),
    # -- released configs (the bundled derivations/checkpoints/*.json) ----------------------------
    _page("hub-google-bert", "config", "Google", "BERT checkpoints: config.json of bert-base-uncased, -cased, "
          "-chinese, -multilingual-cased and -uncased, bert-large-uncased and -cased", "Hugging Face, google-bert",
          2018, "https://huggingface.co/google-bert", short="google-bert on the Hugging Face hub"),
    _page("hub-roberta", "config", "Facebook AI", "RoBERTa checkpoints: config.json of roberta-base and -large",
          "Hugging Face, FacebookAI", 2019, "https://huggingface.co/FacebookAI", short="FacebookAI on the hub"),
    _page("hub-albert", "config", "Google", "ALBERT version-2 checkpoints: config.json of albert-base-v2 to "
          "albert-xxlarge-v2", "Hugging Face, albert", 2019, "https://huggingface.co/albert",
          short="albert on the Hugging Face hub"),
    _page("hub-distilbert", "config", "Hugging Face", "DistilBERT checkpoints: config.json of distilbert-base-uncased "
          "and -cased", "Hugging Face, distilbert", 2019, "https://huggingface.co/distilbert",
          short="distilbert on the Hugging Face hub"),
    _page("hub-openai-community", "config", "OpenAI", "GPT-1 and GPT-2 checkpoints: config.json of openai-gpt, "
          "gpt2, gpt2-medium, -large and -xl", "Hugging Face, openai-community", 2019,
          "https://huggingface.co/openai-community", short="openai-community on the Hugging Face hub"),
    _page("hub-eleutherai", "config", "EleutherAI", "GPT-NeoX-20B and Pythia checkpoints: config.json",
          "Hugging Face, EleutherAI", 2023, "https://huggingface.co/EleutherAI", short="EleutherAI on the hub"),
    _page("hub-google-t5", "config", "Google", "T5 1.0 and 1.1 checkpoints: config.json of t5-small to t5-11b "
          "(google-t5) and t5-v1_1-small to -xxl (google)", "Hugging Face, google-t5 and google", 2019,
          "https://huggingface.co/google-t5", short="google-t5 on the Hugging Face hub"),
    _page("hub-meta-llama", "config", "Meta", "LLaMA checkpoints: config.json of Llama-2-7b-hf to -70b-hf, "
          "Meta-Llama-3-8B and -70B, Llama-3.2-1B and -3B (and LLaMA 1 as converted under huggyllama)",
          "Hugging Face, meta-llama and huggyllama", 2023, "https://huggingface.co/meta-llama",
          short="meta-llama on the Hugging Face hub"),
    _page("hub-mistralai", "config", "Mistral AI", "Mistral and Mixtral checkpoints: config.json of Mistral-7B-v0.1, "
          "Mixtral-8x7B-v0.1 and the Mixtral-8x22B conversions", "Hugging Face, mistralai and mistral-community",
          2023, "https://huggingface.co/mistralai", short="mistralai on the Hugging Face hub"),
    _page("hub-qwen", "config", "Qwen Team (Alibaba)", "Qwen checkpoints: config.json and model cards of Qwen2-0.5B to "
          "-72B, Qwen2.5-0.5B to -72B, Qwen3-0.6B to -32B, Qwen1.5-MoE-A2.7B, Qwen2-57B-A14B, Qwen3-30B-A3B and "
          "Qwen3-235B-A22B (the cards' “Number of Parameters” lines)", "Hugging Face, Qwen", 2024,
          "https://huggingface.co/Qwen", short="Qwen on the Hugging Face hub"),
    _page("hub-google-gemma", "config", "Google", "Gemma checkpoints: config.json of gemma-2b, gemma-7b, gemma-2-2b, "
          "-9b, -27b and gemma-3-1b-pt, -4b-pt, -12b-pt, -27b-pt", "Hugging Face, google", 2024,
          "https://huggingface.co/google", short="google on the Hugging Face hub"),
    _page("hub-microsoft-phi", "config", "Microsoft", "Phi checkpoints: config.json and model cards of "
          "Phi-3-mini-4k-instruct, Phi-3-medium-4k-instruct, Phi-3.5-mini-instruct, phi-4 and Phi-4-mini-instruct",
          "Hugging Face, microsoft", 2024, "https://huggingface.co/microsoft", short="microsoft on the Hugging Face hub"),
    _page("hub-openai-gpt-oss", "config", "OpenAI", "gpt-oss checkpoints: config.json of gpt-oss-20b and gpt-oss-120b",
          "Hugging Face, openai", 2025, "https://huggingface.co/openai", short="openai on the Hugging Face hub"),
    _page("hub-deepseek", "config", "DeepSeek-AI", "DeepSeek checkpoints: config.json and model pages of "
          "DeepSeek-V2, DeepSeek-V2-Lite and DeepSeek-V3", "Hugging Face, deepseek-ai", 2024,
          "https://huggingface.co/deepseek-ai", short="deepseek-ai on the Hugging Face hub"),
    _page("deepseek-v3-code", "code", "DeepSeek-AI", "DeepSeek-V3: inference/model.py (Gate.bias, a parameter of the "
          "7168-wide model) and README_WEIGHTS.md (the MTP module's weights)", "GitHub, deepseek-ai/DeepSeek-V3", 2024,
          "https://github.com/deepseek-ai/DeepSeek-V3", short="DeepSeek-V3's code"),
    _page("hub-helsinki-nlp", "config", "Helsinki-NLP", "opus-mt-en-de: config.json of a Marian model",
          "Hugging Face, Helsinki-NLP", 2020, "https://huggingface.co/Helsinki-NLP/opus-mt-en-de",
          short="Helsinki-NLP/opus-mt-en-de"),
    # -- code --------------------------------------------------------------------------------------
    _page("rocm-mi300", "code", "AMD", "ROCm documentation: docs/conceptual/gpu-arch/mi300.md (the MI300X's peak "
          "TFLOPS by data type, its peak memory bandwidth) and docs/reference/gpu-arch-specs.rst (VRAM in GiB)",
          "GitHub, ROCm/legacy-rocm-build", None,
          "https://github.com/ROCm/legacy-rocm-build/blob/089d7513c55fc7b6edb2a75b83cb40ca883a0ec2/docs/conceptual/"
          "gpu-arch/mi300.md",
          revision="https://github.com/ROCm/legacy-rocm-build/tree/089d7513c55fc7b6edb2a75b83cb40ca883a0ec2",
          short="AMD's ROCm documentation"),
    _page("qwen25-speed-benchmark", "code", "Qwen Team (Alibaba)", "Qwen2.5 Speed Benchmark: "
          "docs/source/benchmark/speed_benchmark.rst (speed and GPU memory of the Qwen2.5 models with transformers "
          "and vLLM, by input length)", "GitHub, QwenLM/Qwen2.5", None,
          "https://github.com/QwenLM/Qwen2.5/blob/010c37c33b13a1ac59944b349620e13404efe97d/docs/source/benchmark/"
          "speed_benchmark.rst",
          revision="https://github.com/QwenLM/Qwen2.5/tree/010c37c33b13a1ac59944b349620e13404efe97d",
          short="Qwen's speed benchmark"),
    _page("qwen25-speed-benchmark-script", "code", "Qwen Team (Alibaba)", "Qwen2.5 Speed Benchmark: "
          "examples/speed-benchmark/speed_benchmark_transformers.py (the peak of torch.cuda.max_memory_allocated, "
          "divided by 1024 three times)", "GitHub, QwenLM/Qwen2.5", None,
          "https://github.com/QwenLM/Qwen2.5/blob/054825eff821f4734482b61796bec04b90e7f55d/examples/speed-benchmark/"
          "speed_benchmark_transformers.py",
          revision="https://github.com/QwenLM/Qwen2.5/tree/054825eff821f4734482b61796bec04b90e7f55d",
          short="its script"),
    _page("keras-hub", "code", "the Keras team", "KerasHub (formerly KerasNLP): model presets and their parameter "
          "counts", "GitHub, keras-team/keras-hub", None, "https://github.com/keras-team/keras-hub",
          revision="https://github.com/keras-team/keras-hub/blob/5c61f1e4a92f1cd74f67977549e1cf5e98665cd2/"
                   "keras_nlp/models/roberta/roberta_presets.py", short="KerasHub"),
    _page("lisa-ftm", "code", "CiphemonJY", "LISA_FTM: BENCHMARK_RESULTS.md and real_training.py",
          "GitHub, CiphemonJY/LISA_FTM", None,
          "https://github.com/CiphemonJY/LISA_FTM/blob/main/BENCHMARK_RESULTS.md", short="CiphemonJY/LISA_FTM"),
    _page("turnkeyml", "code", "the TurnkeyML authors", "TurnkeyML README: models discovered during profiling",
          "GitHub, onnx/turnkeyml", None, "https://github.com/onnx/turnkeyml", short="TurnkeyML's README"),
    _page("accelerate-estimator", "code", "Hugging Face", "Accelerate: the model memory estimator's guide "
          "(estimate-memory and its bert-base-cased table) and src/accelerate/commands/estimate.py",
          "GitHub, huggingface/accelerate", None,
          "https://github.com/huggingface/accelerate/blob/16cb6eb80dd9aa8b4df1a63ef57863e455d53b83/docs/source/"
          "usage_guides/model_size_estimator.md",
          revision="https://github.com/huggingface/accelerate/tree/16cb6eb80dd9aa8b4df1a63ef57863e455d53b83",
          short="accelerate's memory estimator"),
    _page("accelerate-modeling", "code", "Hugging Face", "Accelerate 1.15.0: src/accelerate/utils/modeling.py "
          "(compute_module_sizes, get_max_layer_size, calculate_maximum_sizes)", "GitHub, huggingface/accelerate", 2026,
          "https://github.com/huggingface/accelerate/blob/v1.15.0/src/accelerate/utils/modeling.py",
          revision="https://github.com/huggingface/accelerate/tree/v1.15.0", short="accelerate's modeling utilities"),
    _page("megatron-code", "code", "NVIDIA", "Megatron-LM: megatron/training/vocab_utils.py and arguments.py (the "
          "vocabulary padded to a multiple of make_vocab_size_divisible_by, 128 by default, times the tensor-parallel "
          "size) and megatron/core/transformer/attention.py (fewer key/value heads than devices)",
          "GitHub, NVIDIA/Megatron-LM", 2026,
          "https://github.com/NVIDIA/Megatron-LM/blob/d98e8a64ddf34856e74b24714e3bedb2f5a39553/megatron/training/"
          "vocab_utils.py",
          revision="https://github.com/NVIDIA/Megatron-LM/tree/d98e8a64ddf34856e74b24714e3bedb2f5a39553",
          short="Megatron-LM's code"),
    _page("vllm-linear", "code", "the vLLM authors", "vLLM: vllm/model_executor/layers/linear.py (QKVParallelLinear: "
          "key/value heads replicated where the devices outnumber them)", "GitHub, vllm-project/vllm", 2026,
          "https://github.com/vllm-project/vllm/blob/9e109c9887e38c51fc16b0da89760c5bd7c293c9/vllm/model_executor/"
          "layers/linear.py",
          revision="https://github.com/vllm-project/vllm/tree/9e109c9887e38c51fc16b0da89760c5bd7c293c9",
          short="vLLM's parallel linear layers"),
    _page("llm-analysis", "code", "Cheng Li", "llm-analysis: llm_analysis/analysis.py and tests/test_training.py",
          "GitHub, cli99/llm-analysis", 2024,
          "https://github.com/cli99/llm-analysis",
          revision="https://github.com/cli99/llm-analysis/tree/d841e40aec8c84b9e76ba9cfbce67418adb172bd",
          short="llm-analysis"),
    _page("llm-analysis-0.2.2", "code", "Cheng Li", "llm-analysis 0.2.2, the release on PyPI: llm_analysis/config.py "
          "(get_model_config_from_hf), llm_analysis/analysis.py (the weights and the key/value cache of inference), "
          "llm_analysis/utils.py and examples/llama", "GitHub, cli99/llm-analysis", 2023,
          "https://github.com/cli99/llm-analysis/tree/v0.2.2",
          revision="https://github.com/cli99/llm-analysis/tree/0571436a89b1ee1a97a5bb88229402aeaad621c2",
          short="llm-analysis 0.2.2"),
    _page("gpu-poor", "code", "Rahul Chand", "gpu_poor (“Can my GPU run this LLM?”): src/App.js, the memory of inference "
          "and its README", "GitHub, RahulSChand/gpu_poor", 2024, "https://github.com/RahulSChand/gpu_poor",
          revision="https://github.com/RahulSChand/gpu_poor/tree/ad2fc0ef0e6ceeb7684363504eecc3342a5e7dc4",
          short="gpu_poor"),
    _page("llm-viewer", "code", "Zhihang Yuan and others", "LLM-Viewer: model_analyzer.py (the memory of inference), "
          "configs/Llama.py and frontend/src/utils.js", "GitHub, hahnyuan/LLM-Viewer", 2024,
          "https://github.com/hahnyuan/LLM-Viewer",
          revision="https://github.com/hahnyuan/LLM-Viewer/tree/472f71f1a1807e80b573252e9185fd5e8d795e95",
          short="LLM-Viewer"),
    _page("nanogpt-sizing", "code", "Andrej Karpathy", "nanoGPT: transformer_sizing.ipynb (the parameters and "
          "FLOPs of GPT-2 small, printed)", "GitHub, karpathy/nanoGPT", 2023,
          "https://github.com/karpathy/nanoGPT/blob/master/transformer_sizing.ipynb", short="nanoGPT's sizing notebook"),
    _page("lumi-ml-examples", "code", "LUMI supercomputer", "ml-examples: pytorch/deepspeed/t5_xsum/README.md (the "
          "sizes of the T5 variants in transformers)", "GitHub, Lumi-supercomputer/ml-examples", None,
          "https://github.com/Lumi-supercomputer/ml-examples/blob/main/pytorch/deepspeed/t5_xsum/README.md",
          short="Lumi-supercomputer/ml-examples"),
    _page("t5-tpu", "code", "chuanli11", "t5-tpu README: the training-time table of the T5 1.1 sizes",
          "GitHub, chuanli11/t5-tpu", None, "https://github.com/chuanli11/t5-tpu", short="chuanli11/t5-tpu"),
    # -- threads -----------------------------------------------------------------------------------
    _thread("google-research/bert", 656, "How is the number of BERT model parameters calculated?", 2019,
            opened_by="aslicedbread"),
    _thread("google-research/bert", 1094, "wrong parameters num of bert for Chinese", 2020, opened_by="DukeEnglish"),
    _thread("google-research/bert", 1225, "How do BERT-Base, Multilingual Cased and BERT-Base, Uncased have the same "
            "number of parameters with different vocabulary sizes?", 2021, opened_by="kphowell"),
    _thread("huggingface/transformers", 14960, "Missing parameters when iterating over module.parameters()", 2021,
            opened_by="jankrepl"),
    _thread("pytorch/pytorch", 60853, "Parameter Count of MultiheadAttention does not Change with \"num_heads\" "
            "Argument", 2021, opened_by="kevin3567"),
    _thread("TransformerLensOrg/TransformerLens", 448, "[Bug Report] Fix n_params counts", 2023, opened_by="ArthurConmy"),
    _thread("TransformerLensOrg/TransformerLens", 903, "[Bug Report] gpt2-small: n_params way off", 2025,
            opened_by="Morgan-Sinclaire"),
    _thread("bitsandbytes-foundation/bitsandbytes", 834, "Huge difference in llama2 parameter count after 4bit "
            "loading", 2023, opened_by="akshayiyer2610"),
    _thread("meta-llama/llama", 1111, "parameter count of Llama2-70B and Llama2-13B", 2024, opened_by="joyjitkundu032"),
    _thread("google-research/text-to-text-transfer-transformer", 326, "Question about number of parameters on large "
            "model", 2020, opened_by="marcospiau"),
    _thread("EleutherAI/pythia", 68, "Inconsistency in vocab sizes", 2023, opened_by="nkandpa2"),
    _thread("karpathy/llama2.c", 378, "Parameter counts for 15M, 42M, 110M models", 2023, opened_by="xenova"),
    _thread("Lightning-AI/litgpt", 1845, "Add Mixtral-8x22B", 2024, path="pull"),
    _thread("AI-Hypercomputer/maxtext", 1012, "Correct vocab size for 8x22b", 2024, path="pull"),
    _thread("dottxt-ai/outlines", 236, "Added a fix for missed match tensor size #213", 2023, path="pull",
            opened_by="xaviruvpadhiyar98"),
    _thread("EuroEval/EuroEval", 188, "[MODEL EVALUATION REQUEST] Mistral-7B models", None),
    _thread("Infrasys-AI/AIInfra", 376, "on the attention's parameters as D squared per head", None),
    _thread("codertimo/BERT-pytorch", 30, "The LayerNorm implementation", 2018, opened_by="egg-west"),
    _thread("pytorch/torchtitan", 280, "exclude embedding in MFU computation", 2024, path="pull", opened_by="tianyu-l"),
    _thread("pytorch/torchtitan", 452, "Incorrect MFU computation", 2024, opened_by="thepowerfuldeez"),
    _thread("verl-project/verl", 4959, "[training_utils] fix: Correct Attention TFLOPS estimation & fix CI", 2026,
            path="pull", opened_by="HaochenYuan"),
    _thread("karpathy/nanoGPT", 322, "MFU calculation", 2023, opened_by="Hannibal046"),
    _thread("huggingface/trl", 6708, "Accounting error in FLOPS calculation", 2026, opened_by="Harindhar10"),
    _page("flash-attention-benchmark", "code", "Tri Dao and others", "flash-attention: "
          "benchmarks/benchmark_flash_attention.py (flops: 4 s² d a head, halved when causal; the backward 2.5 times "
          "the forward, forward and backward 3.5 times)", "GitHub, Dao-AILab/flash-attention", 2026,
          "https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/benchmarks/"
          "benchmark_flash_attention.py",
          revision="https://github.com/Dao-AILab/flash-attention/tree/0251105a2fb19d2957484b7f023cd8c115286ced",
          short="FlashAttention's benchmark"),
    _thread("Dao-AILab/flash-attention", 594, "why causal model flops divide 2 ?", 2023, opened_by="donghucey"),
    _thread("huggingface/accelerate", 3379, "estimate-memory gives ~64GB for meta-llama/Llama-3.1-70B-Instruct instead "
            "of anticipated ~140GB", 2025, opened_by="dvrogozh"),
    _thread("hahnyuan/LLM-Viewer", 12, "GQA Correction for KV memory", 2024, opened_by="Vashistht"),
    _thread("meta-pytorch/torchtune", 38, "Initialize kv cache w/num_kv_heads instead of num_heads", 2023,
            opened_by="rohan-varma"),
    _thread("Lightning-AI/lit-llama", 67, "Typo? \"7B require ~26 GB of GPU memory (A100 GPU).\"", 2023,
            opened_by="diegomontoya"),
    _page("stackexchange-120358", "thread", "an answer on Data Science Stack Exchange",
          "How many parameters does the vanilla Transformer have?", "datascience.stackexchange.com", None,
          "https://datascience.stackexchange.com/questions/120358/how-many-parameters-does-the-vanilla-transformer-have",
          short="Data Science Stack Exchange"),
    _page("techchilli-mixtral", "thread", "TechChilli", "What is Mixtral 8x7B and how to access the open-weight "
          "model", "techchilli.com", None,
          "https://techchilli.com/artificial-intelligence/what-is-mixtral-8x7b-and-how-to-access-the-open-weight-model",
          short="TechChilli"),
    # -- the five notes on BERT's size (named by their own origins where they give one) ------------
    Source("note-mlm", "note", "an unnamed author", "a public note deriving BertForMaskedLM's size on "
           "bert-base-chinese, from a hand formula and a named_parameters() listing", "the copy read gives no "
           "address", None, None, short="a public note on BertForMaskedLM"),
    Source("note-stemgene", "note", "stemgene", "03_bert_model_architecture_params.ipynb", "GitHub, "
           "stemgene/All-you-need-is-attention", None,
           "https://github.com/stemgene/All-you-need-is-attention/blob/main/03_bert_model_architecture_params.ipynb",
           read=READ, short="stemgene's notebook"),
    Source("note-chinese-blog", "note", "an unnamed author", "a Chinese-language blog post deriving bert-base's size "
           "from bert-base-chinese's config (75,641,856 and “72.1 MB”)", "the copy read gives no address", None,
           None, short="a Chinese-language blog post"),
    Source("note-yiyangiliu", "note", "yiyangiliu", "a Chinese-language blog post on the parameters of BERT's "
           "layers, its pictures hosted in the author's blog repository", "GitHub, yiyangiliu/blog", None,
           "https://github.com/yiyangiliu/blog", read=READ, short="a blog post whose pictures are in yiyangiliu/blog"),
    Source("note-uncased-notebook", "note", "an unnamed author", "a notebook counting bert-base-uncased's "
           "parameters (BertModel and BertForSequenceClassification)", "the copy read gives no address", None, None,
           short="a notebook on bert-base-uncased"),
)

SOURCES: dict[str, Source] = {source.key: source for source in _SOURCES}
assert len(SOURCES) == len(_SOURCES), "a key given twice"
# The sources a family declares in its own module (declare), after the shared ones above.
_DECLARED: dict[str, Source] = {}


def declare(*declared: Source) -> tuple[Source, ...]:
    """Add a family's own sources (those no other page cites) to the table, so that its claims can cite them; a
    family module calls it before its first Citation and gives the result to its record. A key already taken by
    another source is an error."""
    for source in declared:
        if SOURCES.get(source.key, source) != source:
            raise ValueError(f"the source key {source.key!r} is taken: choose another")
        SOURCES[source.key] = _DECLARED[source.key] = source
    return declared


@dataclass(frozen=True)
class Citation:
    """Where a claim was published: a source's key, and where in it (``locator``, HTML: "Table 2")."""

    key: str
    locator: str = ""

    def __post_init__(self) -> None:
        get(self.key)  # an unknown key fails where the claim is made

    def html(self) -> str:
        return cite(self.key, self.locator)


def get(key: str) -> Source:
    try:
        return SOURCES[key]
    except KeyError:
        raise UnknownSource(f"unknown source {key!r}: add it to derivations/sources.py, or declare it in the family "
                            "module that cites it (sources.declare)") from None


def cite(key: str, locator: str = "") -> str:
    """A citation, in a sentence or a table: the source's short name, linked to its entry on the sources
    page (which links the source itself and the version read), and where in it (``locator``, HTML)."""
    source = get(key)
    return f'<a href="sources.html#{key}">{html.escape(source.label)}</a>' + (f", {locator}" if locator else "")


def entry(source: Source) -> str:
    """A source's entry on the sources page, under an anchor of its key."""
    title = html.escape(source.title)
    linked = f'<a href="{html.escape(source.url)}">{title}</a>' if source.url else f"<em>{title}</em>"
    when = str(source.year) if source.year else "n.d."
    version = (f' Version read: <a href="{html.escape(source.revision)}">{html.escape(source.revision)}</a>.'
               if source.revision else f" Read {source.read}." if source.read else "")
    return (f'<li id="{source.key}"><code>{source.key}</code>: {html.escape(source.authors)}, {linked}. '
            f"{html.escape(source.where)}, {when}.{version}</li>")


def page() -> str:
    """The sources page's list, by category."""
    out = []
    # The shared table's order, then the families' own sources by key (whatever order the families were imported in).
    listed = [*_SOURCES, *(_DECLARED[key] for key in sorted(_DECLARED))]
    for category, heading in CATEGORIES.items():
        entries = [entry(s) for s in listed if s.category == category]
        out.append(f'<h2 id="{category}s">{heading}</h2>\n<ul class="dv-sources">\n' + "\n".join(entries) + "\n</ul>")
    return "\n".join(out)
