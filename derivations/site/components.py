"""What the components page shows: each building block of :mod:`derivations.components` in the project's notation,
and the LayerNorm function beside a variant of it. A page names them ``components.NAME``."""

from __future__ import annotations

import sympy

from ..components import (AttentionLayout, Expr, attention, classifier, embedding, factorized_embedding, feed_forward,
                          layer_norm, linear, lm_prediction_head, mixture_of_experts, pooler, rms_norm)
from ..symbols import C, D, E, F, H, K, V, X, d_h

# ---------------------------------------------------------------------------------------------
# The LayerNorm function (not its count)
# ---------------------------------------------------------------------------------------------

# Same 2d parameters, two functions. nn.LayerNorm (and GPT-2's norm) divide by the square root of
# the biased variance plus eps; a variant (the Annotated Transformer's, copied into several BERT
# re-implementations) divides by the unbiased (Bessel) standard
# deviation plus eps.
x, mu, sigma, s, epsilon, gamma, beta = sympy.symbols(r"x \mu \sigma s \epsilon \gamma \beta")
# Unevaluated sums keep the order in which the papers write them (scale, then shift).
layer_norm_function = sympy.Eq(sympy.Symbol(r"\mathrm{LN}(x)"),
                               sympy.Add(gamma * (x - mu) / sympy.sqrt(sigma**2 + epsilon), beta, evaluate=False))
layer_norm_variant = sympy.Eq(sympy.Symbol(r"\mathrm{LN}'(x)"),
                              sympy.Add(gamma * (x - mu) / (s + epsilon), beta, evaluate=False))


def normalized(values: list[int], unbiased: bool) -> list[Expr]:
    """Exact output of either function with gamma = 1, beta = 0, eps = 0."""
    n = len(values)
    mean = sympy.Rational(sum(values), n)
    squares = sum((sympy.Integer(v) - mean) ** 2 for v in values)
    spread = sympy.sqrt(squares / (n - 1 if unbiased else n))
    return [(v - mean) / spread for v in values]


# On [1, 0, 0, 0] the first output is sqrt(3) with nn.LayerNorm and 3/2 with the variant.
layer_norm_example = [1, 0, 0, 0]
layer_norm_example_torch = normalized(layer_norm_example, unbiased=False)[0]
layer_norm_example_variant = normalized(layer_norm_example, unbiased=True)[0]


# ---------------------------------------------------------------------------------------------
# Each block in the project's notation, as the components page shows it
# ---------------------------------------------------------------------------------------------


_GENERIC = AttentionLayout("q", "k", "v", "o")

embedding_table = embedding("embedding", "embedding table", V, D)
layer_norm_block = layer_norm("layer_norm", D)
rms_norm_block = rms_norm("rms_norm", D)
linear_with_bias = linear("linear", "linear map with bias", D, F)
linear_without_bias = linear("linear_nobias", "linear map without bias", D, F, bias=False)
multi_head_attention = attention(D, H, d_h, layout=_GENERIC)
grouped_query_attention = attention(D, H, d_h, K, bias=False, layout=_GENERIC, name="gqa",
                                    label="grouped-query attention, no biases")
feed_forward_plain = feed_forward(D, F, up="up", down="down")
feed_forward_gated = feed_forward(D, F, bias=False, up="up", down="down", gate="gate", name="gated",
                                  label="gated feed-forward, no biases")
experts = mixture_of_experts(D, F, X, router_path="router", experts_path="experts")
pooler_block = pooler(D)
classifier_block = classifier(D, C, "classifier")
lm_head_block = lm_prediction_head(D, V, tied_to="the word embeddings", path=None, name="lm_head")
factorized_embedding_block = factorized_embedding(V, E, D, table="word_embeddings", projection="projection")
