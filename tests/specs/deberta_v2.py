"""DeBERTa-v2: what the reference harness checks (tests/test_reference_families.py)."""

from hypothesis import strategies as st

from spec import Spec
from strategies import maybe_flags, maybe_labels

# DeBERTa-v3's switches (relative attention over buckets, shared keys, both scores, the table's LayerNorm, no absolute
# positions, no token types), small.
SMALL = {"model_type": "deberta-v2", "vocab_size": 100, "hidden_size": 16, "num_attention_heads": 4,
         "intermediate_size": 32, "num_hidden_layers": 2, "max_position_embeddings": 32, "relative_attention": True,
         "position_buckets": 8, "norm_rel_ebd": "layer_norm", "share_att_key": True, "pos_att_type": "p2c|c2p",
         "position_biased_input": False, "type_vocab_size": 0}


@st.composite
def configs(draw: st.DrawFn) -> dict:
    heads = draw(st.integers(1, 6))
    hidden = heads * draw(st.integers(1, 16))
    config = {"model_type": "deberta-v2", "vocab_size": draw(st.integers(1, 3000)), "hidden_size": hidden,
              "num_attention_heads": heads, "intermediate_size": draw(st.integers(1, 96)),
              "num_hidden_layers": draw(st.integers(1, 3)), "max_position_embeddings": draw(st.integers(1, 300)),
              "type_vocab_size": draw(st.integers(0, 3))}
    maybe_flags(draw, config, "relative_attention", "share_att_key", "position_biased_input", "legacy",
                "tie_word_embeddings")
    if draw(st.booleans()):
        config["pos_att_type"] = draw(st.sampled_from(["p2c|c2p", "c2p", "p2c", "C2P|P2C", "none", ["c2p"],
                                                       ["p2c", "c2p"], []]))
    if draw(st.booleans()):
        config["position_buckets"] = draw(st.integers(-1, 40))
    if draw(st.booleans()):
        config["max_relative_positions"] = draw(st.integers(-1, 60))
    if draw(st.booleans()):
        config["norm_rel_ebd"] = draw(st.sampled_from(["layer_norm", "none", "Layer_Norm|none"]))
    if draw(st.booleans()):
        config["conv_kernel_size"] = draw(st.integers(0, 5))
        config["conv_groups"] = draw(st.sampled_from([g for g in (1, 2, 4) if hidden % g == 0]))
    if draw(st.booleans()):
        config["embedding_size"] = draw(st.integers(1, 40))
    if draw(st.booleans()):
        config["attention_head_size"] = draw(st.integers(1, 12))
    maybe_labels(draw, config)
    return config


SPEC = Spec(
    family="deberta_v2",
    small=SMALL,
    every_class_on_checkpoints=True,
    # DebertaV2Config's defaults: no relative attention, an absolute position table, no token types.
    defaults={"num_hidden_layers": 1},
    layouts={"conv": {"conv_kernel_size": 3, "conv_act": "gelu"},
             "conv-groups": {"conv_kernel_size": 5, "conv_groups": 4},
             "untied": {"tie_word_embeddings": False},
             "lm-predictions": {"legacy": False},
             "projected": {"embedding_size": 8},
             "projected-untied": {"embedding_size": 8, "tie_word_embeddings": False},
             "no-rel-norm": {"norm_rel_ebd": "none"},
             # Position maps of their own: c2p's key map, p2c's query map, both.
             "unshared": {"share_att_key": False},
             "unshared-c2p": {"share_att_key": False, "pos_att_type": ["c2p"]},
             "unshared-p2c": {"share_att_key": False, "pos_att_type": "p2c"},
             "shared-none": {"pos_att_type": None},
             "absolute": {"position_biased_input": True, "type_vocab_size": 2},
             "no-relative": {"relative_attention": False},
             "max-relative": {"position_buckets": -1, "max_relative_positions": 6},
             "relative-fallback": {"position_buckets": -1},
             "head-size": {"attention_head_size": 3}},
    configs=configs(),
    examples=30,
    # Its forward looks for padding in the ids (warn_if_padding_and_no_attention_mask) unless given a mask.
    masked=True,
)
