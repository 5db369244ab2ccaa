"""BERT (Devlin et al. 2018), composed from the components, laid out as transformers' ``BertModel``.

Every part names the module that holds it in transformers (``bert.encoder.layer.0.attention...``),
so the tests compare each node with the reference implementation. The simplified forms assume the
paper's shapes: ``F = 4D`` and ``H d_h = D`` (transformers' BERT requires the latter).
"""

from __future__ import annotations

from dataclasses import replace

from ..contract import Family, Headline
from ..claims import Miscount, Rounded
from ..components import (AttentionLayout, Part, attention, classifier, embedding, encoder_task_heads, feed_forward,
                          group, idle, layer_norm, leaf, lm_prediction_head, pooler as _pooler)
from ..readers import bert as reader
from ..sources import Citation
from ..symbols import D, F, H, L, P, T, V, b, c_bt, d_h, l_2, s
from .. import transient as tr


# The paper's shapes: F = 4D, and heads partition the width.
STANDARD = {F: 4 * D, d_h: D / H}

# ---------------------------------------------------------------------------------------------
# Embeddings: word + position + token type, then LayerNorm
# $$N_\mathrm{emb} = (V + P + T) D + 2D$$
# ---------------------------------------------------------------------------------------------

embeddings = group(
    "embeddings", "embeddings",
    embedding("word", "word (token) embeddings", V, D, "word_embeddings"),
    embedding("position", "learned position embeddings", P, D, "position_embeddings"),
    embedding("token_type", "token-type (segment) embeddings", T, D, "token_type_embeddings"),
    layer_norm("norm", D, "LayerNorm", label="embedding LayerNorm"),
    path="embeddings", symbol=r"N_{\mathrm{emb}}",
)

# ---------------------------------------------------------------------------------------------
# One encoder layer (post-LN): attention, Add & LayerNorm, feed-forward, Add & LayerNorm
# $$N_\mathrm{layer} = (3 D H d_h + 3 H d_h + D^2 + D) + 2D + (2 D F + F + D) + 2D = 12D^2 + 13D$$
# when F = 4D and H d_h = D.
# ---------------------------------------------------------------------------------------------

def _attention_block(module: str, name: str, label: str, causal: bool = False) -> tuple[Part, Part]:
    """BertAttention at ``module``: Q, K, V, O (in ``module.self`` / ``module.output.dense``), and the
    LayerNorm that BertAttention also holds (``module.output.LayerNorm``), kept as its own part."""
    layout = AttentionLayout(query=f"{module}.self.query", key=f"{module}.self.key",
                             value=f"{module}.self.value", output=f"{module}.output.dense")
    # BertSelfOutput's dense is hidden x hidden, whatever the heads cover: O is D x D.
    return (attention(D, H, d_h, layout=layout, name=name, label=label, output_in=D, causal=causal),
            layer_norm(f"{name}_norm", D, f"{module}.output.LayerNorm", label=f"LayerNorm after {label}"))


def _layer(cross_attention: bool) -> Part:
    parts = [*_attention_block("attention", "attention", "self-attention", causal=cross_attention)]
    if cross_attention:
        # A decoder layer (is_decoder and add_cross_attention) attends to the encoder's states too:
        # a second BertAttention, same shapes (keys and values come from the hidden size D). Run on tokens
        # alone, transformers skips it: built, idle.
        cross, norm = _attention_block("crossattention", "cross_attention", "cross-attention")
        parts += [idle(cross), idle(norm)]
    parts += [feed_forward(D, F, up="intermediate.dense", down="output.dense"),
              layer_norm("output_norm", D, "output.LayerNorm", label="LayerNorm after feed-forward")]
    return group("layer", "decoder layer with cross-attention" if cross_attention else "encoder layer", *parts,
                 path="layer", symbol=r"N_{\mathrm{layer}}")


layer = _layer(cross_attention=False)
# The layer of a BERT decoder (is_decoder and add_cross_attention in config.json).
decoder_layer = _layer(cross_attention=True)


def _encoder(layer: Part) -> Part:
    # L identical layers, each with its own weights: the layer times L.
    return group("encoder", "encoder", replace(layer, repeat=L), path="encoder", symbol=r"N_{\mathrm{enc}}")


encoder = _encoder(layer)

# The [CLS] pooler: one dense D x D with bias (then tanh). A sibling of the encoder, not part of it.
pooler = _pooler(D)

# ---------------------------------------------------------------------------------------------
# Heads
# ---------------------------------------------------------------------------------------------

# Masked-LM head: transform (dense + LayerNorm), a decoder whose weight *is* the word embedding
# table, and a bias of V (decoder.bias is the same tensor as predictions.bias).
mlm_head = lm_prediction_head(D, V, tied_to="bert.embeddings.word_embeddings", path="predictions", name="mlm")
# With tie_word_embeddings false, the decoder has a weight and a bias of its own.
mlm_head_untied = lm_prediction_head(D, V, tied_to="", path="predictions", name="mlm", tied=False)
# Next-sentence prediction: two logits from the pooled output.
# On the pooled state: one row a sequence.
nsp_head = replace(classifier(D, 2, "seq_relationship", name="nsp", label="next-sentence classifier"), tokens=1)


def _architectures(encoder: Part, mlm_head: Part = mlm_head) -> dict[str, Part]:
    """Every BERT class of transformers, named as transformers names it, around one encoder."""

    def body(name: str, label: str, with_pooler: bool, path: str | None) -> Part:
        parts = [embeddings, encoder] + ([pooler] if with_pooler else [])
        return group(name, label, *parts, path=path, symbol=rf"N_{{\mathrm{{{name}}}}}")

    def model(name: str, label: str, with_pooler: bool, *heads: Part, in_cls: bool = False) -> Part:
        """The body under ``bert.`` plus the heads (under ``cls.`` for the LM and NSP heads)."""
        if in_cls:
            heads = (group("cls", "heads", *heads, path="cls"),)
        inner = body("bert", "BertModel" if with_pooler else "BertModel without pooler", with_pooler, "bert")
        return group(name, label, inner, *heads, symbol=rf"N_{{\mathrm{{{name}}}}}")

    return {
        "BertModel": body("BertModel", "BertModel: embeddings, encoder, pooler", True, None),
        # BertModel(config, add_pooling_layer=False): the body the token-level heads sit on.
        "BertModelWithoutPooler": body("BertModelWithoutPooler",
                                       "BertModel(add_pooling_layer=False): embeddings, encoder", False, None),
        "BertForMaskedLM": model("BertForMaskedLM", "BERT with the masked-LM head", False, mlm_head, in_cls=True),
        "BertLMHeadModel": model("BertLMHeadModel", "BERT with a causal LM head", False, mlm_head, in_cls=True),
        "BertForPreTraining": model("BertForPreTraining", "BERT with the MLM and NSP heads", True, mlm_head,
                                    nsp_head, in_cls=True),
        "BertForNextSentencePrediction": model("BertForNextSentencePrediction", "BERT with the NSP head", True,
                                               nsp_head, in_cls=True),
        **{name: model(name, head.label, head.pooled, *head.parts)
           for name, head in encoder_task_heads("Bert", "BERT").items()},
    }


def architectures(cross_attention: bool = False, untied: bool = False) -> dict[str, Part]:
    """Every class in one layout: a decoder with cross-attention (is_decoder, add_cross_attention), an
    untied masked-LM decoder (tie_word_embeddings false)."""
    return _architectures(_encoder(decoder_layer) if cross_attention else encoder,
                          mlm_head_untied if untied else mlm_head)


ARCHITECTURES = architectures()
# Every layout a config.json can ask for (readers.bert.READER.layout).
VARIANTS = reader.READER.layout.variants(architectures)

# The classes as module-level names, for the docs and the tests.

# ---------------------------------------------------------------------------------------------
# Simplified forms under F = 4D and H d_h = D
# ---------------------------------------------------------------------------------------------

layer_standard = layer.subs(STANDARD)
encoder_standard = encoder.subs(STANDARD)
BertModel_standard = ARCHITECTURES["BertModel"].subs(STANDARD)

# ---------------------------------------------------------------------------------------------
# Published counts, reconciled (the common-mistakes page)
# ---------------------------------------------------------------------------------------------

_SEED = Citation("note-chinese-blog")
_NOTEBOOK = Citation("note-stemgene")

# 75,641,856 for bert-base-chinese: attention counted once instead of L times, every Q/K/V/O and
# feed-forward bias left out. Its arithmetic, term by term:
#   (V + P + 2) W = 16,621,056;  768*64*3*12 + 768*768 = 2,359,296;  12 (768*3072 + 3072*768) = 56,623,104;
#   768*2 + 768*2*12 + 768*2*12 = 38,400.
# The config it quotes names BertForMaskedLM, which has no pooler; the post counts no head, so what it
# counts is that class's body, BertModel(add_pooling_layer=False). The pooler is no error of the post.
chinese_75m = Miscount(
    "chinese_75m", 75_641_856, "bert-base-chinese: “大约有 75641856 个” (about 75,641,856)",
    _SEED, "bert-base-chinese", ARCHITECTURES["BertModelWithoutPooler"],
    terms=(
        leaf("attention_layers", "attention weights of the other L − 1 layers", (3 * D * H * d_h + D**2) * (L - 1)),
        leaf("attention_biases", "Q, K, V and O biases, every layer", L * (3 * H * d_h + D)),
        leaf("ffn_biases", "feed-forward biases, every layer", L * (F + D)),
    ),
    reconstruction=group(
        "claimed", "the published sum",
        leaf("embeddings", "embedding tables, no LayerNorm", (V + P + T) * D),
        leaf("attention", "Q, K, V, O weights of one layer", 3 * D * d_h * H + D**2),
        leaf("ffn", "feed-forward weights, L layers, no biases", L * 2 * D * F),
        leaf("norms", "LayerNorms: embeddings and 2 per layer", 2 * D + L * 2 * 2 * D),
    ),
    model="the body of <code>BertForMaskedLM</code> on <code>bert-base-chinese</code>",
    cause="the attention weights are counted for one layer instead of all of them, and every bias of the Q, K, V, O "
          "and feed-forward maps is left out",
)

# 85,645,056 printed as "encoder" in a notebook on bert-base-uncased: its loop adds the pooler's
# parameters to the encoder's running total (and prints the pooler as 0).
pooler_in_encoder = Miscount(
    "pooler_in_encoder", 85_645_056, "bert-base-uncased encoder (with pooler 0)",
    _NOTEBOOK, "bert-base-uncased", encoder,
    terms=(leaf("pooler", "the pooler, added to the encoder's total", -(D**2 + D)),),
    reconstruction=group("claimed", "the notebook's encoder", encoder, pooler),
    model="the encoder of <code>bert-base-uncased</code>",
    cause="the notebook's loop adds the pooler's parameters to the encoder's total, and prints the pooler as 0",
)

# 102,290,312 for BertForMaskedLM on bert-base-chinese is right; the formula beside it calls the
# masked-LM head's transform dense ("D*D") the pooler. BertForMaskedLM has no pooler.
mlm_transform_as_pooler = Miscount(
    "mlm_transform_as_pooler", 102_290_312,
    "BertForMaskedLM on bert-base-chinese, with the head's square dense map labelled “Pool_fc”",
    Citation("note-mlm"), "bert-base-chinese", ARCHITECTURES["BertForMaskedLM"],
    reconstruction=group(
        "claimed", "the published formula (its L is the sequence length, P here)",
        leaf("word", "word embeddings", V * D), leaf("position", "positions", P * D),
        leaf("types_and_norm", "token types (2D) and the embedding LayerNorm (2D)", 4 * D),
        leaf("layers", "12 layers of 12D² + 13D", L * (12 * D**2 + 13 * D)),
        leaf("head", "decoder bias, 'Pool_fc' dense, LayerNorm", V + D**2 + 3 * D),
    ),
    model="<code>BertForMaskedLM</code> on <code>bert-base-chinese</code>",
    cause="the square map the source labels “Pool_fc” is the masked-LM head's transform: the class has no pooler",
)

# state_dict() lists a tied tensor under every name it has; parameters() yields it once. Accelerate's
# init_empty_weights() with transformers 5.x leaves the decoder untied and reports the same sum.
tied_counted_twice = Miscount(
    "tied_counted_twice", 118_537_744, "BertForMaskedLM on bert-base-chinese, summed over state_dict()",
    Citation("llama2.c-378", "the same sum on llama2.c's models; the same mistake is made by summing "
             "<code>state_dict()</code>, or by building the model under accelerate's <code>init_empty_weights()</code> "
             "with transformers 5.x"), "bert-base-chinese", ARCHITECTURES["BertForMaskedLM"],
    terms=(leaf("decoder_weight", "cls.predictions.decoder.weight, the word embeddings again", -V * D),
           leaf("decoder_bias", "cls.predictions.decoder.bias, the same tensor as cls.predictions.bias", -V)),
    model="<code>BertForMaskedLM</code> on <code>bert-base-chinese</code>",
    cause="a sum over <code>state_dict()</code> counts the tied word embeddings and output bias a second time",
)


# Rounded figures from the paper and Google's README, against every convention they could mean.
_CONVENTIONS = tuple(ARCHITECTURES[name] for name in ("BertModelWithoutPooler", "BertModel", "BertForPreTraining"))
_PAPER = Citation("devlin2019", "section 3")
_README = Citation("bert-readme", "list of released models")
base_110m = Rounded("base_110m", 110_000_000, "BERT_BASE (L=12, H=768, A=12, Total Parameters=110M)", _PAPER,
                    "bert-base-uncased", _CONVENTIONS)
large_340m = Rounded("large_340m", 340_000_000, "BERT_LARGE (L=24, H=1024, A=16, Total Parameters=340M)", _PAPER,
                     "bert-large-uncased", _CONVENTIONS)
chinese_110m = Rounded("chinese_110m", 110_000_000, "BERT-Base, Chinese: Chinese Simplified and Traditional, "
                       "12-layer, 768-hidden, 12-heads, 110M parameters", _README, "bert-base-chinese", _CONVENTIONS)
multilingual_110m = Rounded("multilingual_110m", 110_000_000, "BERT-Base, Multilingual Cased (New, recommended): "
                            "104 languages, 12-layer, 768-hidden, 12-heads, 110M parameters", _README,
                            "bert-base-multilingual-cased", _CONVENTIONS)
multilingual_uncased_110m = Rounded("multilingual_uncased_110m", 110_000_000,
                                    "BERT-Base, Multilingual Uncased (Orig, not recommended): 102 languages, "
                                    "12-layer, 768-hidden, 12-heads, 110M parameters", _README,
                                    "bert-base-multilingual-uncased", _CONVENTIONS)

# Bytes are not parameters: 4 bytes each in fp32. The "72.1 MB" of the 75,641,856 derivation is the
# count divided by 2^20, neither bytes nor MB.

# "More heads, more parameters": a proposal to count each of W_Q, W_K, W_V as D^2 per head
# ([cite: aiinfra-376]), against what the layer holds: H heads of size d_h share the width.
qkv_weights_if_heads_multiplied = 3 * H * D**2
qkv_weights = 3 * D * H * d_h

# ---------------------------------------------------------------------------------------------
# What the five public notes on BERT's size print, figure by figure (the BERT page, "What the five
# notes print"). Each printed integer is a Miscount: the figure as printed, the part the note says it
# counts, and the terms that make up the difference where there is one (none where it is right).
# Ratios are expressions beside them. Sources are named by the notes' own origins.
# ---------------------------------------------------------------------------------------------

_MLM_NOTE = Citation("note-mlm")
_LAYERS_BLOG = Citation("note-yiyangiliu")
_UNCASED_NOTEBOOK = Citation("note-uncased-notebook")


def _printed(name: str, claim: int, what: str, source: str, checkpoint: str, counts: Part, *terms: Part,
             printed: str = "") -> Miscount:
    """A figure a note prints, against the part it says it counts."""
    return Miscount(name, claim, what, source, checkpoint, counts, terms=terms, printed=printed)


def _times_layers(part: Part, name: str, label: str) -> Part:
    """A part of the layer, all L copies of it."""
    return group(name, label, replace(part, repeat=L))


_attention_weights_one_layer = chinese_75m.reconstruction.child("attention")
_word, _position, _token_type, _emb_norm = embeddings.children
_attention, _attention_norm, _ffn, _output_norm = layer.children
# The tensors a per-parameter listing prints one by one.
query_weight = leaf("query_weight", "encoder.layer.0.attention.self.query.weight", D * H * d_h)
query_bias = leaf("query_bias", "encoder.layer.0.attention.self.query.bias", H * d_h)
layer_norm_weight = leaf("layer_norm_weight", "embeddings.LayerNorm.weight (the bias is as long)", D)
# The pooler's parameters, which one notebook adds to its encoder total and another to a name it never defines.
_pooler_missing = leaf("pooler", "the pooler (dense with bias), counted elsewhere or not at all", D**2 + D)

NOTES = {
    # BertForMaskedLM on bert-base-chinese, from a hand formula and a named_parameters() listing.
    "mlm_note": {
        "total": _printed("total", 102_290_312, "“Total parameters”", _MLM_NOTE, "bert-base-chinese",
                          ARCHITECTURES["BertForMaskedLM"]),
        "embeddings": _printed("embeddings", 16_622_592, "Embedding: V*D + 2*D + L*D + 2*D", _MLM_NOTE,
                               "bert-base-chinese", embeddings),
        "layers": _printed("layers", 85_054_464, "Transformer Blocks: 12 * (12*D*D + 13D)", _MLM_NOTE,
                           "bert-base-chinese", encoder),
    },
    # BertModel on bert-base-uncased; it prints counts in units of 10^8 and shares of the total.
    "bert_notebook": {
        "total": _printed("total", 109_482_240, "total parameters", _NOTEBOOK, "bert-base-uncased",
                          ARCHITECTURES["BertModel"], printed="1.0948224"),
        "embeddings": _printed("embeddings", 23_837_184, "embedding parameters", _NOTEBOOK, "bert-base-uncased",
                               embeddings, printed="0.23837184"),
        "pooler": _printed("pooler", 0, "pooler", _NOTEBOOK, "bert-base-uncased", pooler, _pooler_missing,
                           printed="0.0"),
        # Shares of BertModel's total; the notebook's "encoder" share has the pooler in it.
        "embedding_ratio": embeddings.total / ARCHITECTURES["BertModel"].total,
        "encoder_and_pooler_ratio": (encoder.total + pooler.total) / ARCHITECTURES["BertModel"].total,
        "encoder_ratio": encoder.total / ARCHITECTURES["BertModel"].total,
        "pooler_ratio": pooler.total / ARCHITECTURES["BertModel"].total,
    },
    # bert-base-chinese (the config it quotes names BertForMaskedLM); its four subtotals add up to 75,641,856.
    "chinese_blog": {
        "embeddings": _printed("embeddings", 16_621_056, "embedding tables: (V + L + 2) * W", _SEED,
                               "bert-base-chinese", group("tables", "word, position and token-type tables",
                                                          _word, _position, _token_type)),
        "attention": _printed("attention", 2_359_296, "self-attention: (768 * 64) * 3 * 12 + 768 * 768", _SEED,
                              "bert-base-chinese", _times_layers(_attention, "attention", "self-attention, L layers"),
                              *chinese_75m.terms[:2]),
        "feed_forward": _printed("feed_forward", 56_623_104, "feed forward: 12 * (768 * 3072 + 3072 * 768)", _SEED,
                                 "bert-base-chinese",
                                 _times_layers(_ffn, "feed_forward", "feed-forward, L layers"), chinese_75m.terms[2]),
        "norms": _printed("norms", 38_400, "layerNorm: 768 * 2 + 768 * 2 * 12 + 768 * 2 * 12", _SEED,
                          "bert-base-chinese",
                          group("norms", "embedding LayerNorm and two per layer", _emb_norm,
                                group("layer_norms", "the layers' LayerNorms", _attention_norm, _output_norm,
                                      repeat=L))),
    },
    # 24 layers, 1024 wide, the Chinese vocabulary; no pooler, no heads.
    "layers_blog": {
        "word": _printed("word", 21_635_072, "Embedding-Token", _LAYERS_BLOG, "bert-large-21128-vocab", _word),
        "token_type": _printed("token_type", 2_048, "Embedding-Segment", _LAYERS_BLOG, "bert-large-21128-vocab",
                               _token_type),
        "position": _printed("position", 524_288, "Embedding-Position", _LAYERS_BLOG, "bert-large-21128-vocab",
                             _position),
        "embedding_norm": _printed("embedding_norm", 2_048, "Embedding-Norm", _LAYERS_BLOG,
                                   "bert-large-21128-vocab", _emb_norm),
        "embeddings": _printed("embeddings", 22_163_456, "embeddings", _LAYERS_BLOG, "bert-large-21128-vocab",
                               embeddings),
        "attention": _printed("attention", 4_198_400, "MultiHeadSelfAttention: 4 dense maps with bias",
                              _LAYERS_BLOG, "bert-large-21128-vocab", _attention),
        "attention_norm": _printed("attention_norm", 2_048, "MultiHeadSelfAttention-Norm", _LAYERS_BLOG,
                                   "bert-large-21128-vocab", _attention_norm),
        "up": _printed("up", 4_198_400, "FeedForward, first dense", _LAYERS_BLOG, "bert-large-21128-vocab",
                       _ffn.child("up")),
        "down": _printed("down", 4_195_328, "FeedForward, second dense", _LAYERS_BLOG, "bert-large-21128-vocab",
                         _ffn.child("down")),
        "feed_forward": _printed("feed_forward", 8_393_728, "FeedForward", _LAYERS_BLOG, "bert-large-21128-vocab",
                                 _ffn),
        "output_norm": _printed("output_norm", 2_048, "FeedForward-Norm", _LAYERS_BLOG, "bert-large-21128-vocab",
                                _output_norm),
        "layer": _printed("layer", 12_596_224, "transformer (one layer)", _LAYERS_BLOG, "bert-large-21128-vocab",
                          layer),
        "total": _printed("total", 324_472_832, "Total trainable variables", _LAYERS_BLOG,
                          "bert-large-21128-vocab", ARCHITECTURES["BertModelWithoutPooler"]),
    },
    # BertModel on bert-base-uncased: a named_parameters() listing, then three totals.
    "uncased_notebook": {
        "word": _printed("word", 23_440_896, "embeddings.word_embeddings.weight", _UNCASED_NOTEBOOK,
                         "bert-base-uncased", _word),
        "position": _printed("position", 393_216, "embeddings.position_embeddings.weight", _UNCASED_NOTEBOOK,
                             "bert-base-uncased", _position),
        "token_type": _printed("token_type", 1_536, "embeddings.token_type_embeddings.weight", _UNCASED_NOTEBOOK,
                               "bert-base-uncased", _token_type),
        "layer_norm_weight": _printed("layer_norm_weight", 768, "embeddings.LayerNorm.weight", _UNCASED_NOTEBOOK,
                                      "bert-base-uncased", layer_norm_weight),
        "query_weight": _printed("query_weight", 589_824, "encoder.layer.0.attention.self.query.weight",
                                 _UNCASED_NOTEBOOK, "bert-base-uncased", query_weight),
        "query_bias": _printed("query_bias", 768, "encoder.layer.0.attention.self.query.bias", _UNCASED_NOTEBOOK,
                               "bert-base-uncased", query_bias),
        "total": _printed("total", 109_482_240, "total parameters", _UNCASED_NOTEBOOK, "bert-base-uncased",
                          ARCHITECTURES["BertModel"]),
        "embeddings": _printed("embeddings", 23_837_184, "embedding", _UNCASED_NOTEBOOK, "bert-base-uncased",
                               embeddings),
        "encoder": _printed("encoder", 85_054_464, "encoder", _UNCASED_NOTEBOOK, "bert-base-uncased", encoder),
        "pooler": _printed("pooler", 0, "pooler", _UNCASED_NOTEBOOK, "bert-base-uncased", pooler, _pooler_missing),
    },
}


# ---------------------------------------------------------------------------------------------
# The forward at inference (derivations.transient): transformers' modeling_bert.py, statement by statement, as
# an encoder runs it (is_decoder false); its input the ids alone (an all-ones mask is no mask: none is built)
# ---------------------------------------------------------------------------------------------

def embeddings_forward(t: tr.Timeline, width=D) -> str:
    """BertEmbeddings.forward: the token type ids gathered from the buffer (one row), the word and token type
    embeddings summed, the position embeddings (one row) added, LayerNorm; everything but the result dies when it
    returns. ``width``: the embeddings' (ALBERT's E)."""
    stream = tr.activation(b * s * width)
    t.new("token_type_ids", tr.INT64 * s)
    t.new("inputs_embeds", stream)
    t.new("token_type_embeddings", stream)
    t.new("sum1", stream)
    t.new("position_embeddings", tr.activation(s * width))
    t.new("sum2", stream)
    t.drop("sum1")
    tr.layer_norm(t, "embedding_output", width)
    t.drop("sum2", "inputs_embeds", "token_type_ids", "token_type_embeddings", "position_embeddings")
    return "embedding_output"


def layer_forward(t: tr.Timeline, out: str) -> str:
    """BertLayer.forward on its caller's input: q, k and v; eager attention without a mask (the softmax in the
    activation dtype); the output's dense and LayerNorm of it plus the input; the intermediate dense and its GELU;
    the output dense and LayerNorm of it plus the attention's output. The attention weights (``_``) and the
    attention's output live until the layer returns."""
    rows, heads = b * s, b * H * s
    for name in ("query", "key", "value"):
        tr.linear(t, name, rows, D)
    weights: tuple[str, ...] = ()
    if t.attention == "sdpa":  # no mask (an encoder's ids alone), no scores returned; the output tokens by heads
        context, _ = tr.sdpa_attention(t, "query", "key", "value", H, d_h)
    else:
        context, weights = eager_attention(t, heads)
    t.drop("query", "key", "value")  # BertSelfAttention returns
    tr.linear(t, "attention_dense", rows, D)
    t.new("attention_sum", tr.activation(rows * D))
    tr.layer_norm(t, "attention_output", D)
    t.drop("attention_sum", "attention_dense")
    t.drop(*context)  # BertAttention binds attention_output again
    intermediate = tr.linear(t, "intermediate_dense", rows, F)
    t.new("intermediate", tr.activation(rows * F))  # GELU (nn.functional.gelu: one tensor)
    t.drop(intermediate)
    tr.linear(t, "output_dense", rows, D)
    t.new("output_sum", tr.activation(rows * D))
    tr.layer_norm(t, out, D)
    t.drop("output_sum", "output_dense", "intermediate")
    t.drop(*weights, "attention_output")  # the layer returns
    return out


def eager_attention(t: tr.Timeline, heads) -> tuple[tuple[str, str], tuple[str]]:
    """BertSelfAttention's eager attention on q, k and v (its caller's): the scores, scaled, softmaxed (in the
    activation dtype), times the values, and the heads merged; returns the output's names and the weights'."""
    # torch.matmul folds batch and heads of the head-split views by a copy where it cannot view them together (c_bt).
    tr.scaled_scores(t, c_bt * heads * d_h, c_bt * heads * d_h, heads * s)
    t.new("weights", tr.activation(heads * s))
    t.drop("scaled")
    tr.merge_heads(t, heads, d_h, c_bt)
    return ("context", "context_contiguous"), ("weights",)


def encoder_forward(t: tr.Timeline, head: str, embeddings=embeddings_forward, layer=layer_forward) -> None:
    """BertModel.forward and its heads: the embeddings (held by BertModel's forward until it returns), the layers
    (the first reads the embeddings; a later one its predecessor's output, which dies when it returns); then the
    head: ``pooler`` (the first token's dense and tanh), ``none``, or ``mlm`` (transform: dense, GELU, LayerNorm;
    then the decoder's logits of every token). ``embeddings``: a kin's (RoBERTa's), leaving ``embedding_output``;
    ``layer``: a kin's (DistilBERT's)."""
    stream = tr.activation(b * s * D)
    embeddings(t)
    layer(t, "hidden")
    with t.only(l_2):
        t.drop("hidden")
        t.new("previous", stream)
        layer(t, "hidden")
        t.drop("previous")
    head_forward(t, head)


def head_forward(t: tr.Timeline, head: str) -> None:
    """The end of BertModel.forward (``embedding_output`` dies as it returns) and the head on the last layer's
    output: ``pooler`` (the first token's dense and tanh, inside the model), ``none``, or ``mlm`` (transform: dense,
    GELU, LayerNorm; then the decoder's logits of every token). A kin's (MPNet's) too."""
    if head == "pooler":
        t.new("pooler_dense", tr.activation(b * D))
        t.new("pooled", tr.activation(b * D))
        t.drop("pooler_dense")
    t.drop("embedding_output")  # the model's forward returns
    if head == "mlm":
        tr.dense_act_norm(t, "transform", b * s, D)
        t.new("logits", tr.activation(b * s * V))


# The code paths the program follows: an encoder, GELU in torch, the feed-forward in one chunk.
REQUIRES = (("is_decoder", False, (False,)), ("hidden_act", "gelu", ("gelu",)),
             ("chunk_size_feed_forward", 0, (0,)))


def encoder_transient(head: str, embeddings=embeddings_forward, layer=layer_forward, requires=REQUIRES,
                      attention: str = "eager") -> tr.Transient:
    """An encoder class's forward at inference, with ``head`` (see :func:`encoder_forward`), under ``attention``."""
    return tr.transient(lambda t, generate: encoder_forward(t, head, embeddings, layer), generates=False,
                        requires=requires, products=(("H", "d_h", "D"),), attention=attention)


def encoder_classes(attention: str = "eager") -> dict:
    """BERT's derived classes in every layout (none with cross-attention), under ``attention``."""
    return {layout: {"BertModel": encoder_transient("pooler", attention=attention),
                     "BertModelWithoutPooler": encoder_transient("none", attention=attention),
                     "BertForMaskedLM": encoder_transient("mlm", attention=attention)}
            for layout in ("", "untied")} | {layout: {} for layout in VARIANTS if "cross_attention" in layout}


TRANSIENT = encoder_classes()
# ... under sdpa attention (transformers' default).
TRANSIENT_SDPA = encoder_classes("sdpa")


FAMILY = Family(
    name="bert",
    reader=reader.READER,
    variants=VARIANTS,
    base="BertModel",
    # Bundled checkpoint configs (derivations/checkpoints/NAME.json): the first seven as published on the Hugging
    # Face hub under google-bert/NAME [cite: hub-google-bert]. The last is not a published checkpoint: it is the model
    # a Chinese-language blog post on BERT's layers counts (NOTES["layers_blog"]), 24 layers, 1024 wide, the Chinese
    # 21,128-token vocabulary, without pooler or heads, and its config names the pseudo-class BertModelWithoutPooler
    # (BertModel with add_pooling_layer=False).
    checkpoints=(
        "bert-base-uncased",
        "bert-base-cased",
        "bert-base-chinese",
        "bert-base-multilingual-cased",
        "bert-base-multilingual-uncased",
        "bert-large-uncased",
        "bert-large-cased",
        "bert-large-21128-vocab",
    ),
    first_published="2018-10",
    kind="encoder",
    maker="Google",
    headlines=(Headline("BertModel", "bert-base-uncased"),),
    example="bert-base-uncased",
    # Columns of the checkpoint table on the BERT page.
    table_symbols=(V, D, L),
    # class -> column header
    table_columns={
        "BertModel": "BertModel",
        "BertModelWithoutPooler": "without pooler",
        "BertForMaskedLM": "ForMaskedLM",
        "BertForPreTraining": "ForPreTraining",
    },
    miscounts=(chinese_75m, pooler_in_encoder, mlm_transform_as_pooler, tied_counted_twice),
    rounded=(base_110m, large_340m, chinese_110m, multilingual_110m, multilingual_uncased_110m),
    # Sizes the calculator derives rather than asks for: the head size is the floor of the width over the heads.
    ratios={d_h: (D, H)},
    transient=TRANSIENT,
    transient_sdpa=TRANSIENT_SDPA,
)
