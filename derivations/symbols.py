"""The notation: one SymPy symbol per hyper-parameter, stated once and used everywhere.

Each symbol carries its meaning, the Hugging Face ``config.json`` field it is read from, and the
names other well-known texts give the same quantity. The notation page of the site is generated
from :data:`NOTATION`; nothing else in the project defines a symbol.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy


def _size(name: str, latex: str | None = None) -> sympy.Symbol:
    # Sizes are positive integers; telling SymPy so lets it simplify D/H * H to D.
    symbol = sympy.Symbol(name, integer=True, positive=True)
    if latex is not None:
        # NOTE: render.latex passes this mapping to SymPy's printer.
        LATEX_NAMES[symbol] = latex
    return symbol


LATEX_NAMES: dict[sympy.Symbol, str] = {}

V = _size("V")
V_d = _size("V_d", r"V_{\mathrm{dec}}")
P = _size("P")
T = _size("T")
D = _size("D")
F = _size("F")
F_d = _size("F_d", r"F_{\mathrm{dec}}")
L = _size("L")
L_d = _size("L_d", r"L_{\mathrm{dec}}")
H = _size("H")
d_h = _size("d_h", r"d_{\mathrm{h}}")
d_k = _size("d_k", r"d_{\mathrm{k}}")
K = _size("K")
C = _size("C")
E = _size("E")
X = _size("X")
X_a = _size("X_a", r"X_{\mathrm{a}}")
X_s = _size("X_s", r"X_{\mathrm{s}}")
F_e = _size("F_e", r"F_{\mathrm{e}}")
F_s = _size("F_s", r"F_{\mathrm{s}}")
L_f = _size("L_f", r"L_{\mathrm{f}}")
R_q = _size("R_q", r"R_{\mathrm{q}}")
R_kv = _size("R_kv", r"R_{\mathrm{kv}}")
d_r = _size("d_r", r"d_{\mathrm{rope}}")
d_n = _size("d_n", r"d_{\mathrm{nope}}")
d_v = _size("d_v", r"d_{\mathrm{v}}")
G = _size("G")
# DeBERTa-v2's disentangled attention: the relative positions one side of zero (its table holds 2 P_r rows), and its
# optional convolution's kernel and the inputs each of its outputs reads (D over its groups).
P_r = _size("P_r", r"P_{\mathrm{r}}")
k_c = _size("k_c", r"k_{\mathrm{c}}")
D_g = _size("D_g", r"D_{\mathrm{g}}")
L_g = _size("L_g", r"L_{\mathrm{g}}")
B = _size("B")
M = _size("M")
# What a model computes depends on its input as well: the tokens of a sequence and the sequences of a batch.
s = _size("s")
s_d = _size("s_d", r"s_{\mathrm{dec}}")
b = _size("b")
# Where a model is trained: the devices a layer's tensors are split over (tensor parallelism), and the heads of
# the keys and values that an attention's matmuls keep (memory: what autograd saves).
t = _size("t")
H_r = _size("H_r", r"H_{\mathrm{r}}")
# What a forward holds at inference (derivations.transient): the bytes of one activation element (2 in bf16 or
# fp16, 4 in fp32), and whether the model computes below fp32, where each upcast to fp32 is a copy (1), or in
# fp32, where it is the tensor itself (0).
w = _size("w")
u = sympy.Symbol("u", integer=True, nonnegative=True)
# Conditions on the sizes, each 1 where it holds and 0 where not (derivations.storage.transient_values): where a
# tensor is made or not depends on them, and a moment of the forward exists only where its condition holds.
l_2 = sympy.Symbol("l_2", integer=True, nonnegative=True)
g_kv = sympy.Symbol("g_kv", integer=True, nonnegative=True)
c_t = sympy.Symbol("c_t", integer=True, nonnegative=True)
c_b = sympy.Symbol("c_b", integer=True, nonnegative=True)
c_bt = sympy.Symbol("c_bt", integer=True, nonnegative=True)
b_2 = sympy.Symbol("b_2", integer=True, nonnegative=True)
f_w = sympy.Symbol("f_w", integer=True, nonnegative=True)
f_m = sympy.Symbol("f_m", integer=True, nonnegative=True)
f_a = sympy.Symbol("f_a", integer=True, nonnegative=True)
f_b = sympy.Symbol("f_b", integer=True, nonnegative=True)
# The same conditions at an encoder-decoder's decoder: its second layer, and its s_d tokens in place of s.
l_2d = sympy.Symbol("l_2d", integer=True, nonnegative=True)
c_td = sympy.Symbol("c_td", integer=True, nonnegative=True)
c_btd = sympy.Symbol("c_btd", integer=True, nonnegative=True)
# Under sdpa attention: whether the first layer, and some later layer, is handed a mask (a sliding window no longer
# than the tokens), whether the model builds that mask, and whether a head is too wide for transformers to hand sdpa
# grouped key/value heads unrepeated.
m_1 = sympy.Symbol("m_1", integer=True, nonnegative=True)
m_2 = sympy.Symbol("m_2", integer=True, nonnegative=True)
m_w = sympy.Symbol("m_w", integer=True, nonnegative=True)
g_w = sympy.Symbol("g_w", integer=True, nonnegative=True)
# Which layers rotate their queries and keys (SmolLM3's layers without rotary embeddings do not): the first (r_1),
# some later one (r_2); and one key/value head for several query heads (g_1: repeat_kv expands it, a view).
r_1 = sympy.Symbol("r_1", integer=True, nonnegative=True)
r_2 = sympy.Symbol("r_2", integer=True, nonnegative=True)
g_1 = sympy.Symbol("g_1", integer=True, nonnegative=True)
# A mixture's experts loop (derivations.transient.experts_loop): whether a token picks an expert at all (x_1) and
# two or more (x_2: the loop holds the tensors of the expert before the one it runs), and how many experts a
# layer's routing hits at most while two of them take every token (x_h, a count).
x_1 = sympy.Symbol("x_1", integer=True, nonnegative=True)
x_2 = sympy.Symbol("x_2", integer=True, nonnegative=True)
x_h = sympy.Symbol("x_h", integer=True, nonnegative=True)
# ... x_g: the same within one group of experts (DeepSeek's routing limited to one group a token); and where the
# first L_f layers are dense (DeepSeek's first_k_dense_replace): the first layer is dense (l_fd), a later one is
# (l_d2), a later one holds experts (l_e2).
x_g = sympy.Symbol("x_g", integer=True, nonnegative=True)
l_fd = sympy.Symbol("l_fd", integer=True, nonnegative=True)
l_d2 = sympy.Symbol("l_d2", integer=True, nonnegative=True)
l_e2 = sympy.Symbol("l_e2", integer=True, nonnegative=True)
f_c = sympy.Symbol("f_c", integer=True, nonnegative=True)
c_g = sympy.Symbol("c_g", integer=True, nonnegative=True)
# Config fields that set no parameter but sizes a forward makes: DeepSeek's groups of experts and the groups a
# token's experts come from.
G_x = _size("G_x", r"G_{\mathrm{x}}")
G_k = _size("G_k", r"G_{\mathrm{k}}")
# ALiBi's slopes (BLOOM's, Falcon's): one for each of the first H_a heads, H_a the largest power of two at most H, and
# where H is not one (a_r), the slopes of the H - H_a others, made apart and concatenated.
H_a = _size("H_a", r"H_{\mathrm{a}}")
a_r = sympy.Symbol("a_r", integer=True, nonnegative=True)
# Switches a config sets, each 1 or 0, where a tensor or a product exists or not without changing the classes' layout
# (DeBERTa-v2: an absolute position table, the content-to-position and position-to-content scores, the relative
# table projected by the content's own query and key maps).
n_abs = sympy.Symbol("n_abs", integer=True, nonnegative=True)
n_c2p = sympy.Symbol("n_c2p", integer=True, nonnegative=True)
n_p2c = sympy.Symbol("n_p2c", integer=True, nonnegative=True)
n_sh = sympy.Symbol("n_sh", integer=True, nonnegative=True)
LATEX_NAMES.update({n_abs: r"n_{\mathrm{abs}}", n_c2p: r"n_{\mathrm{c2p}}", n_p2c: r"n_{\mathrm{p2c}}",
                    n_sh: r"n_{\mathrm{sh}}"})
# The switches a config sets (each 0 or 1, never more): a count of parameters is linear in each, with (1 - n_sh)
# where a tensor exists only without the switch, so a form that asks for them takes nothing above 1.
SWITCHES = frozenset({n_abs, n_c2p, n_p2c, n_sh})
# What a vision transformer reads: an image cut into N_p square patches of p by p pixels over C_i channels (ViT's
# patch embedding is a convolution with kernel and stride p); its pooler's width D_p, and the factor S its masked
# image modelling head scales the resolution back up by.
N_p = _size("N_p", r"N_{\mathrm{p}}")
p = _size("p")
C_i = _size("C_i", r"C_{\mathrm{in}}")
D_p = _size("D_p", r"D_{\mathrm{p}}")
S = _size("S")
# A pair of towers (CLIP's, SigLIP's): the text tower's sizes, where the vision tower takes the plain ones; and the
# width both towers' pooled states are projected to, where they are compared.
D_t = _size("D_t", r"D_{\mathrm{t}}")
F_t = _size("F_t", r"F_{\mathrm{t}}")
L_t = _size("L_t", r"L_{\mathrm{t}}")
H_t = _size("H_t", r"H_{\mathrm{t}}")
E_p = _size("E_p", r"E_{\mathrm{p}}")
# What Whisper reads: a log-mel spectrogram of N_m bins, 2 N_f frames (30 seconds), which its strided convolution
# halves to the N_f rows its encoder runs on; the width its audio classifier projects the encoder's states to.
N_m = _size("N_m", r"N_{\mathrm{mel}}")
N_f = _size("N_f", r"N_{\mathrm{f}}")
D_c = _size("D_c", r"D_{\mathrm{c}}")
# A model that joins a vision tower to a language model (LLaVA, Gemma 3, Qwen2.5-VL, Llama 4): the language model
# keeps the plain sizes (D, F, L, H, K, d_h, V), its vision tower takes these; and the tokens one image becomes in the
# language model's sequence, after the projector.
D_v = _size("D_v", r"D_{\mathrm{v}}")
F_v = _size("F_v", r"F_{\mathrm{v}}")
L_v = _size("L_v", r"L_{\mathrm{v}}")
H_v = _size("H_v", r"H_{\mathrm{v}}")
N_i = _size("N_i", r"N_{\mathrm{img}}")
# Qwen2.5-VL's tower: a patch spans p_t frames as well as p by p pixels; its merger joins each square of S_m by S_m
# patches into one token of width D_o (out_hidden_size).
p_t = _size("p_t", r"p_{\mathrm{t}}")
S_m = _size("S_m", r"S_{\mathrm{m}}")
D_o = _size("D_o", r"D_{\mathrm{o}}")
# Qwen3-VL's tower: a learned table of P_v positions (a square grid, resampled to each image's), and L_ds mergers
# beside its main one, one for each block whose states DeepStack adds into the language model's first layers.
P_v = _size("P_v", r"P_{\mathrm{v}}")
L_ds = _size("L_ds", r"L_{\mathrm{ds}}")
# Qwen2.5-VL's tower attends within windows in most blocks: the query-key pairs of one image's attention, summed over
# its blocks (each window's square, or the whole image's in a full-attention block), which its image sets.
A_v = _size("A_v", r"A_{\mathrm{v}}")
# Llama 4's tower ends in an adapter of its own (a pixel shuffle, then two matrices: F_a wide, D_a out), and hands
# the projector states of width D_vo (vision_output_dim).
F_a = _size("F_a", r"F_{\mathrm{a}}")
D_a = _size("D_a", r"D_{\mathrm{a}}")
D_vo = _size("D_vo", r"D_{\mathrm{vo}}")
# A ratio, not a size: Meta's ffn_dim_multiplier (1.3 for Llama-2-70B).
r = sympy.Symbol("r", positive=True)


# Every symbol above by its name ("d_h"): a config's reader gives sizes by name, plain Python.
BY_NAME: dict[str, sympy.Symbol] = {str(v): v for v in dict(globals()).values() if isinstance(v, sympy.Symbol)}


def valued(values: Mapping[str, int]) -> dict[sympy.Symbol, int]:
    """Sizes by name (a reader's) as values of the symbols: {"D": 768} -> {D: 768}."""
    return {BY_NAME[name]: value for name, value in values.items()}


@dataclass(frozen=True)
class Notation:
    """One hyper-parameter: its symbol, what it means, and where readers meet it."""

    symbol: sympy.Symbol
    meaning: str
    hf_fields: tuple[str, ...]
    elsewhere: str


NOTATION: tuple[Notation, ...] = (
    Notation(V, "vocabulary size: rows of the token embedding table", ("vocab_size",),
             "V in most texts; GPT-2's n_vocab"),
    Notation(V_d, "decoder vocabulary of an encoder-decoder whose two sides do not share one table (V_dec = V when they do)",
             ("decoder_vocab_size",), "Vaswani et al. share one vocabulary (and one matrix) between source and target"),
    Notation(P, "maximum sequence length: rows of the position table (learned; a fixed sinusoidal table learns nothing)", ("max_position_embeddings", "n_positions"),
             "a public note on BERT writes L; Kaplan et al. write n_ctx"),
    Notation(T, "token types (segments): rows of the segment table", ("type_vocab_size",),
             "usually 2 in BERT (sentence A and B)"),
    Notation(D, "hidden size: width of the residual stream and of every embedding", ("hidden_size", "n_embd", "d_model", "dim"),
             "BERT's paper writes H; Kaplan et al. d_model; a Chinese-language blog post W"),
    Notation(F, "feed-forward inner size", ("intermediate_size", "n_inner", "d_ff", "encoder_ffn_dim", "hidden_dim"),
             "Kaplan et al. d_ff; 4D in BERT and GPT-2; the encoder's in an encoder-decoder"),
    Notation(F_d, "decoder feed-forward inner size of an encoder-decoder (equal to F in the original Transformer)",
             ("decoder_ffn_dim",), "Vaswani et al. d_ff (the same for both stacks)"),
    Notation(L, "number of layers (blocks); the encoder's in an encoder-decoder", ("num_hidden_layers", "n_layer",
                                                                                  "encoder_layers", "num_layers",
                                                                                  "n_layers"),
             "BERT's paper writes L; Kaplan et al. n_layer; Vaswani et al. N; a public note on BERT N"),
    Notation(L_d, "decoder layers of an encoder-decoder (equal to L in the original Transformer and T5)",
             ("decoder_layers", "num_decoder_layers"), "Vaswani et al. N (the same N for both stacks)"),
    Notation(H, "attention heads", ("num_attention_heads", "n_head", "encoder_attention_heads", "num_heads",
                                  "n_heads"),
             "BERT's paper writes A; Vaswani et al. h"),
    Notation(d_h, "size of one attention head; D/H in BERT", ("head_dim", "d_kv"),
             "Vaswani et al. d_k = d_v"),
    Notation(d_k, "size of one head's queries and keys where it differs from d_h, the size of its values",
             (), "Vaswani et al. d_k (Table 3, rows B, narrows it and keeps d_v)"),
    Notation(K, "key/value heads in grouped-query attention; K = H is ordinary multi-head attention",
             ("num_key_value_heads",), "n_kv_heads in Meta's params.json"),
    Notation(C, "labels of a classification head", ("num_labels", "id2label"),
             "2 by default in transformers"),
    Notation(E, "factorized embedding size (ALBERT); E = D when embeddings are not factorized",
             ("embedding_size",), "ALBERT's paper writes E"),
    Notation(X, "experts in a mixture-of-experts layer", ("num_local_experts",), "Mixtral's paper writes n"),
    Notation(X_a, "experts that run for each token (top-k routing); X_a = X would make every expert active",
             ("num_experts_per_tok",), "Mixtral's paper writes K (2 of 8)"),
    Notation(X_s, "shared experts: experts every token uses, beside the X_a the router picks (DeepSeek)",
             ("n_shared_experts",), "DeepSeek-V2's paper writes N_s (and N_r for the routed experts)"),
    Notation(F_e, "inner size of one expert of a mixture, where it differs from the dense feed-forward's F",
             ("moe_intermediate_size",), "DeepSeek-V2's paper: the intermediate hidden dimension of each expert"),
    Notation(F_s, "inner size of the shared expert of Qwen's mixtures (one expert, gated by its own sigmoid)",
             ("shared_expert_intermediate_size",), "transformers' shared_expert, beside the routed experts"),
    Notation(L_f, "layers with a dense feed-forward in a model whose other layers hold experts",
             ("first_k_dense_replace", "mlp_only_layers", "decoder_sparse_step"),
             "DeepSeek's first_k_dense_replace; Qwen's mlp_only_layers and decoder_sparse_step decide which"),
    Notation(R_q, "rank of the compressed queries in latent attention (DeepSeek): D to R_q, then to the heads",
             ("q_lora_rank",), "DeepSeek-V2's paper writes d_c' (1536); none in V2-Lite, whose queries are not compressed"),
    Notation(R_kv, "rank of the compressed keys and values in latent attention (DeepSeek): the latent each token caches",
             ("kv_lora_rank",), "DeepSeek-V2's paper writes d_c (512)"),
    Notation(d_r, "the part of a query and key head that carries the rotary embedding, in latent attention (DeepSeek)",
             ("qk_rope_head_dim",), "DeepSeek-V2's paper writes d_h with a superscript R (64)"),
    Notation(d_n, "the part of a query and key head without rotary embedding, in latent attention (DeepSeek)",
             ("qk_nope_head_dim",), "DeepSeek-V2's paper writes d_h (128)"),
    Notation(d_v, "size of one head's values in latent attention (DeepSeek), where queries and keys have d_nope + d_rope",
             ("v_head_dim",), "DeepSeek-V2's paper writes d_h (128) for both"),
    Notation(G, "groups of layers that share their weights across depth (ALBERT); G = L is an ordinary stack",
             ("num_hidden_groups",), "1 in every released ALBERT: all layers share one set of weights"),
    Notation(L_g, "layers inside one group of shared layers (ALBERT), each with weights of its own",
             ("inner_group_num",), "1 in every released ALBERT"),
    Notation(P_r, "relative distances one side of zero that DeBERTa-v2's attention tells apart: its shared relative "
                  "position table has 2 P_r rows; 0 without relative attention",
             ("position_buckets", "max_relative_positions", "max_position_embeddings"),
             "DeBERTa's paper writes k (the maximum relative distance); position_buckets (256) in DeBERTa-v3"),
    Notation(k_c, "kernel size of DeBERTa-v2's convolution beside its first layer (0: none)", ("conv_kernel_size",),
             "3 in deberta-v2-xlarge"),
    Notation(D_g, "inputs each output channel of DeBERTa-v2's convolution reads: D over its groups (D by default)",
             ("conv_groups",), "hidden_size / conv_groups"),
    Notation(B, "relative position buckets: rows of T5's relative attention bias, one value per head",
             ("relative_attention_num_buckets",), "32 in every released T5"),
    Notation(N_p, "patches of one image: (height // p)(width // p); a vision transformer's sequence is N_p + 1 "
                  "tokens with its class token", ("image_size", "patch_size"),
             "ViT's paper writes N: the image's pixels over the patch's"),
    Notation(p, "side of one square patch, in pixels: the kernel and stride of the patch embedding's convolution",
             ("patch_size",), "ViT's paper writes P (16 in ViT-B/16)"),
    Notation(C_i, "channels of an input image (3: red, green, blue)", ("num_channels",), "ViT's paper writes C"),
    Notation(D_p, "width of a vision transformer's pooler (D unless a config says otherwise)",
             ("pooler_output_size",), ""),
    Notation(S, "factor by which ViT's masked-image-modelling head scales the patches back to pixels",
             ("encoder_stride",), "SimMIM's one-layer prediction head"),
    Notation(D_t, "width of a pair's text tower (CLIP's, SigLIP's), where D is its vision tower's",
             ("text_config.hidden_size",), "CLIP's paper: the text transformer's width (512)"),
    Notation(F_t, "feed-forward inner size of a pair's text tower", ("text_config.intermediate_size",), ""),
    Notation(L_t, "layers of a pair's text tower", ("text_config.num_hidden_layers",), "CLIP's paper: 12 layers"),
    Notation(H_t, "attention heads of a pair's text tower", ("text_config.num_attention_heads",),
             "CLIP's paper: 8 heads"),
    Notation(N_m, "mel bins of a speech model's input spectrogram: the channels its first convolution reads",
             ("num_mel_bins",), "Whisper's paper: an 80-channel log-magnitude Mel spectrogram (128 in large-v3)"),
    Notation(N_f, "frames a speech encoder runs on: its input's 2 N_f spectrogram frames after a convolution of "
                  "stride 2; rows of its fixed sinusoidal position table", ("max_source_positions",),
             "Whisper: 1500 for a 30-second window (10 ms a frame, halved)"),
    Notation(D_c, "width Whisper's audio classifier projects each frame's state to before averaging them",
             ("classifier_proj_size",), "256 by WhisperConfig's default"),
    Notation(D_v, "width of the vision tower of a model that joins one to a language model (whose width is D)",
             ("vision_config.hidden_size",), "the vision encoder's width in the papers"),
    Notation(F_v, "feed-forward inner size of such a vision tower", ("vision_config.intermediate_size",), ""),
    Notation(L_v, "layers of such a vision tower", ("vision_config.num_hidden_layers",), ""),
    Notation(H_v, "attention heads of such a vision tower", ("vision_config.num_attention_heads",), ""),
    Notation(p_t, "frames one patch spans (a video's; an image is repeated to fill them): the temporal kernel and "
                  "stride of Qwen2.5-VL's patch convolution", ("temporal_patch_size",), "Qwen2.5-VL's report: 2 frames"),
    Notation(S_m, "side of the square of patches a vision tower's merger joins into one token (S_m by S_m patches a token)",
             ("spatial_merge_size",), "Qwen2.5-VL's report: adjacent 2 x 2 patches"),
    Notation(D_o, "width a vision tower's merger outputs: the language model's D in every release",
             ("out_hidden_size",), ""),
    Notation(P_v, "rows of a vision tower's learned position table: a square grid, resampled to each image's grid of "
                  "patches", ("num_position_embeddings",), "Qwen3-VL: 2304 (48 x 48)"),
    Notation(L_ds, "mergers beside a vision tower's main one: one for each block whose states DeepStack adds to the "
                   "language model's first layers (0 where none)", ("deepstack_visual_indexes",),
             "Qwen3-VL: three blocks"),
    Notation(A_v, "query-key pairs of one image's attention in a vision tower, summed over its blocks: the sum of each "
                  "window's patches squared in a windowed block, the image's N_p patches squared in a full-attention "
                  "block",
             ("window_size", "fullatt_block_indexes", "image_grid_thw"),
             "Qwen2.5-VL's report: windows of 112 x 112 pixels, full attention in four blocks"),
    Notation(F_a, "outputs of the first matrix of Llama 4's vision adapter (after the pixel shuffle, which makes "
                  "each token F_v wide)", ("vision_config.projector_input_dim",), "4096 in both releases"),
    Notation(D_a, "width Llama 4's vision adapter outputs (its second matrix is D_a by D_a)",
             ("vision_config.projector_output_dim",), "4096 in both releases"),
    Notation(D_vo, "width of the states Llama 4's projector maps to the language model's D",
             ("vision_config.vision_output_dim",), "4096 in both releases (7680 by the config class's default)"),
    Notation(N_i, "tokens one image becomes in a language model's sequence, after the projector (among the s tokens "
                  "of the sequence)", ("mm_tokens_per_image",),
             "Gemma 3's report: 256 soft tokens an image; LLaVA: one per patch of its vision tower"),
    Notation(E_p, "width of the joint space a pair projects both towers' pooled states to, where they are compared",
             ("projection_dim",), "CLIP's paper: the multi-modal embedding space"),
    Notation(s, "sequence length: the tokens of one sequence (for an encoder-decoder, the source the encoder "
                "reads); at most P where positions are learned", (),
             "Kaplan et al. n_ctx; PaLM T; Megatron-LM and Korthikanti et al. s; nanoGPT T"),
    Notation(s_d, "target length: the tokens the decoder of an encoder-decoder reads (s_dec = s unless given)", (),
             "the length of the decoder's input (decoder_input_ids)"),
    Notation(b, "batch size: sequences processed together; every FLOP count scales with it", (),
             "Megatron-LM B; Korthikanti et al. b"),
    Notation(t, "tensor-parallel degree: the devices each layer's matrices are split over", (),
             "Korthikanti et al. t; Megatron-LM t"),
    Notation(H_r, "heads of the keys and values that attention's matrix products keep for the backward pass: H "
                  "(transformers repeats the K heads), or 1 with one key/value head and one sequence (views)", (),
             "transformers' repeat_kv and num_key_value_groups"),
    Notation(w, "bytes of one activation element: 2 in bf16 or fp16 (and for weights in a 4- or 8-bit format, "
                "which compute in 16 bits), 4 in fp32", (), "the activation dtype (torch_dtype)"),
    Notation(u, "1 where a model computes below fp32 (each upcast to fp32 is a copy), 0 in fp32 (the tensor itself)",
             (), "transformers' .to(torch.float32) before a norm, a softmax, the rotary angles"),
    Notation(l_2, "1 where the model has a second layer (L >= 2), else 0: a later layer's input is a tensor of its "
                  "own, the first layer's is the embeddings, which the model holds anyway", (), ""),
    Notation(g_kv, "1 where grouped-query attention copies its key/value heads to the H query heads (1 < K < H), "
                   "else 0 (K = H: no repetition; K = 1: a view)", (), "transformers' repeat_kv"),
    Notation(c_t, "1 where attention's output, heads by tokens, is copied to tokens by heads (s > 1 and H > 1), "
                  "else 0 (the transpose is contiguous already)", (), "transformers' transpose(1, 2).contiguous()"),
    Notation(c_b, "1 where a matrix product over heads copies a view of a fused projection to fold batch and heads "
                  "together (b > 1 and H > 1), else 0", (), "torch.matmul's reshape of GPT-2's split c_attn"),
    Notation(c_bt, "1 where a matrix product over heads copies a head-split view of a projection to fold batch and "
                   "heads together (b > 1, H > 1 and s > 1), else 0", (), "torch.matmul's reshape in BERT's attention"),
    Notation(b_2, "1 where the batch holds a second sequence (b > 1), else 0: a tensor expanded over the batch is "
                  "then copied by contiguous()", (), "MPNet's position bias, expand(b, ...).contiguous()"),
    Notation(f_w, "1 where some layer attends to a sliding window (the model builds a sliding-window mask), else 0",
             (), "sliding_window, use_sliding_window, layer_types"),
    Notation(f_m, "1 where layers of both kinds exist, sliding and full, else 0 (Gemma 3 makes rotary "
                  "embeddings for each kind present)", (), "layer_types, sliding_window_pattern"),
    Notation(f_a, "1 where a config picks the other of two code paths a family's forward takes (GPT-NeoX-20B's "
                  "gelu_fast, written in Python, against torch's gelu; Gemma 2 without its attention's softcap), "
                  "else 0", (), "hidden_act, attn_logit_softcapping"),
    Notation(f_b, "1 where a config picks the other of a second pair of code paths (Gemma 2 without its logits' "
                  "softcap), else 0", (), "final_logit_softcapping"),
    Notation(l_2d, "1 where an encoder-decoder's decoder has a second layer (L_dec >= 2), else 0", (), ""),
    Notation(c_td, "c_t at an encoder-decoder's decoder: 1 where s_dec > 1 and H > 1, else 0", (),
             "transformers' transpose(1, 2).contiguous()"),
    Notation(c_btd, "c_bt at an encoder-decoder's decoder: 1 where b > 1, H > 1 and s_dec > 1, else 0", (),
             "torch.matmul's reshape of a head-split view"),
    Notation(m_1, "1 where sdpa attention is given a mask in the first layer (it attends to a sliding window of at "
                  "most the tokens), else 0 (no mask: sdpa's is_causal)", (), "sliding_window, layer_types"),
    Notation(m_2, "1 where sdpa attention is given a mask in some later layer, else 0", (),
             "sliding_window, layer_types"),
    Notation(m_w, "1 where a model builds a sliding-window mask for sdpa attention: it has one (a layer slides, or "
                  "it builds one anyway: Gemma 3) and its window is no longer than the tokens, else 0", (),
             "sliding_window"),
    Notation(r_1, "1 where the first layer rotates its queries and keys (rotary embeddings), else 0 (a layer "
                  "without position embeddings: SmolLM3's NoPE layers)", (), "no_rope_layers"),
    Notation(r_2, "1 where some later layer rotates its queries and keys, else 0", (), "no_rope_layers"),
    Notation(g_1, "1 where one key/value head serves several query heads (K = 1 < H), else 0: repeat_kv expands it "
                  "(a view), which a matrix product over heads copies to fold a batch of more than one", (),
             "transformers' repeat_kv; torch.matmul's reshape"),
    Notation(g_w, "1 where a head is wider than 256, else 0: transformers then repeats grouped key/value heads "
                  "for sdpa (enable_gqa only up to 256)", (), "transformers' use_gqa_in_sdpa"),
    Notation(x_1, "1 where the router picks an expert for each token (X_a >= 1), else 0 (top-0: no expert runs)",
             (), "num_experts_per_tok"),
    Notation(x_2, "1 where the router picks two experts or more for each token (X_a >= 2), else 0: the experts' "
                  "loop then holds the tensors of the expert it ran before beside those of the one it runs", (),
             "num_experts_per_tok; transformers' loop over expert_hit"),
    Notation(x_h, "experts a layer's routing hits, at most, while two of them take every token: the rows of "
                  "expert_hit", (), "transformers' expert_hit (one 64-bit index an expert hit)"),
    Notation(x_g, "x_h where a token's experts all come from one group (DeepSeek's group-limited routing with "
                  "topk_group 1): the experts hit, at most, in that group", (), "n_group, topk_group"),
    Notation(l_fd, "1 where the first layer is dense (L_f >= 1: DeepSeek's first_k_dense_replace), else 0", (),
             "first_k_dense_replace"),
    Notation(l_d2, "1 where a dense layer follows the first (L_f >= 2), else 0", (), "first_k_dense_replace"),
    Notation(l_e2, "1 where a layer with experts follows the first (L - max(L_f, 1) >= 1), else 0", (),
             "first_k_dense_replace, num_hidden_layers"),
    Notation(n_abs, "1 where DeBERTa-v2 adds an absolute position table to the word embeddings, else 0",
             ("position_biased_input",), "false in DeBERTa-v3: relative positions only"),
    Notation(n_c2p, "1 where DeBERTa-v2's attention adds content-to-position scores (relative_attention, c2p in "
                    "pos_att_type), else 0", ("pos_att_type",), "DeBERTa's paper: the content-to-position term"),
    Notation(n_p2c, "1 where DeBERTa-v2's attention adds position-to-content scores (relative_attention, p2c in "
                    "pos_att_type), else 0", ("pos_att_type",), "DeBERTa's paper: the position-to-content term"),
    Notation(n_sh, "1 where DeBERTa-v2 projects its relative table with each layer's own query and key maps "
                   "(share_att_key), else 0: no position maps of its own", ("share_att_key",),
             "true in DeBERTa-v3 and deberta-v2-xlarge"),
    Notation(f_c, "1 where a config picks the other of a third pair of code paths (DeepSeek's routing within one "
                  "group), else 0", (), "topk_group"),
    Notation(c_g, "1 where DeepSeek's router copies its mask of the groups, expanded to the experts (G_x > 1 and "
                  "X / G_x > 1: otherwise the expanded mask is a view), else 0", (), "n_group"),
    Notation(G_x, "groups the router splits the experts into (DeepSeek's group-limited routing)", ("n_group",),
             "DeepSeek-V2's paper writes M for the devices a token's experts may sit on"),
    Notation(G_k, "groups a token's experts come from (DeepSeek's group-limited routing)", ("topk_group",), ""),
    Notation(H_a, "the largest power of two at most H: ALiBi's slopes are made for that many heads first", (),
             "transformers' closest_power_of_2 in _get_alibi_slopes"),
    Notation(a_r, "1 where the heads are not a power of two (H > H_a): ALiBi's slopes of the other heads are made "
                  "apart and concatenated, else 0", (), "transformers' _get_alibi_slopes"),
    Notation(M, "the multiple LLaMA rounds its feed-forward width up to", (),
             "multiple_of in Meta's params.json (256 for LLaMA-1 and Llama-2-7B)"),
    Notation(r, "the factor LLaMA scales its feed-forward width by, before rounding (not an integer)",
             (), "ffn_dim_multiplier in Meta's params.json (1.3 for Llama-2-70B)"),
)

