"""The components compose into a family they were designed for but that has no module yet.

ALBERT (factorized embeddings, one layer shared across depth) built from the components, against
transformers' AlbertModel on the meta device: the blocks must fit the reference without new code.
"""

import sympy

import reference  # skips without torch/transformers (fails under CI)
from derivations import components as c
from derivations.symbols import D, E, F, H, L, P, T, V, d_h

transformers = reference.require("transformers")
torch = reference.require("torch")

ALBERT_ATTENTION = c.AttentionLayout("attention.query", "attention.key", "attention.value", "attention.dense")

albert_layer = c.group(
    "layer", "shared layer",
    c.attention(D, H, d_h, layout=ALBERT_ATTENTION),
    c.layer_norm("attention_norm", D, "attention.LayerNorm"),
    c.feed_forward(D, F, up="ffn", down="ffn_output"),
    c.layer_norm("output_norm", D, "full_layer_layer_norm"),
    path="albert_layer_groups.0.albert_layers.0",
)
albert = c.group(
    "AlbertModel", "AlbertModel",
    c.group("embeddings", "embeddings",
            c.embedding("word", "word", V, E, "word_embeddings"),
            c.embedding("position", "position", P, E, "position_embeddings"),
            c.embedding("token_type", "token type", T, E, "token_type_embeddings"),
            c.layer_norm("norm", E, "LayerNorm"), path="embeddings"),
    c.group("encoder", "encoder",
            c.linear("projection", "E to D", E, D, True, "embedding_hidden_mapping_in"),
            c.shared(albert_layer, L), path="encoder"),
    c.pooler(D, "pooler"),
)


def test_albert_base_v2_from_components():
    # albert-base-v2 config.json [cite: hub-albert]: V 30,000, E 128, D 768, 12 layers sharing one,
    # 12 heads, F 3,072, 512 positions, 2 token types.
    config = dict(vocab_size=30000, embedding_size=128, hidden_size=768, num_hidden_layers=12,
                  num_attention_heads=12, intermediate_size=3072, max_position_embeddings=512, type_vocab_size=2)
    with torch.device("meta"):
        model = transformers.AlbertModel(transformers.AlbertConfig(**config))
    values = {V: 30000, E: 128, D: 768, L: 12, H: 12, d_h: 64, F: 3072, P: 512, T: 2}
    assert albert.count(values) == reference.total(model)
    derived = reference.derived_counts(albert, values)
    assert derived == reference.reference_counts(albert, model)
    # Sharing: the depth L does not appear in the count at all.
    assert L not in albert.total.free_symbols


def test_factorized_embedding_saves_v_times_d_minus_e():
    part = c.factorized_embedding(V, E, D, table="t", projection="p")
    assert sympy.expand(V * D - part.total) == V * D - V * E - E * D - D


def test_copies_select_the_layers_that_differ():
    # Two kinds of layer in one ModuleList (as DeepSeek's first dense layers before its expert layers):
    # each group of the tree covers the copies that have, or lack, the selected module, and a wrong
    # number of copies shows as a mismatch.
    nn = torch.nn

    class Layer(nn.Module):
        def __init__(self, sparse: bool) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(4)
            self.mlp = nn.ModuleDict({"experts": nn.Linear(4, 8)} if sparse else {"dense": nn.Linear(4, 4)})

    model = nn.Module()
    model.layers = nn.ModuleList([Layer(False), Layer(True), Layer(True), Layer(False)])
    X = sympy.Symbol("X", positive=True, integer=True)

    def tree(dense_copies: sympy.Expr) -> c.Part:
        def kind(name: str, mlp: c.Part, copies: str, repeat: sympy.Expr) -> c.Part:
            return c.group(name, name, c.layer_norm("norm", D, "norm"), c.group("mlp", "mlp", mlp, path="mlp"),
                           path="layers", repeat=repeat, copies=copies)
        return c.group("model", "model",
                       kind("dense", c.linear("dense", "dense", D, D, True, "dense"), "!mlp.experts", dense_copies),
                       kind("sparse", c.linear("experts", "experts", D, 2 * D, True, "experts"), "mlp.experts",
                            X - dense_copies))

    values = {D: 4, X: 4}
    right = tree(sympy.Integer(2))
    assert reference.derived_counts(right, values) == reference.reference_counts(right, model)
    wrong = tree(sympy.Integer(3))
    assert reference.derived_counts(wrong, values) != reference.reference_counts(wrong, model)
