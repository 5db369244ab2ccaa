"""GLM-4.5 and GLM-4.5-Air: 355B and 32B, 106B and 12B, the MTP layer and the released files.

Expected values come from outside the project: the technical report's Table 1 [cite: glm2025], the README
[cite: glm45-readme], the released configs [cite: hub-zai-org], and transformers (tests/specs/glm4_moe.py).
"""

from derivations import registry
from derivations.families import glm4_moe as g


def _billions(count: int) -> int:
    return round(count / 10**9)


def test_table_1_counts_the_mtp_layer_and_not_the_embeddings():
    # Table 1's caption: "we include the parameters of MTP layers but not word embeddings and the output layer".
    # GLM-4.5: 355B total, 32B activated; both hold under the caption's convention.
    values = registry.checkpoint("glm-4.5").values
    assert _billions(g.report_total.count(values)) == 355
    assert _billions(g.report_active.count(values)) == 32
    # transformers' model (no MTP layer, embeddings and head included) is 353B: not the figure.
    assert _billions(registry.checkpoint("glm-4.5").total) == 353


def test_the_airs_106b_leaves_the_mtp_layer_out():
    # GLM-4.5-Air: Table 1 says 106B and 12B under the same caption; with its MTP layer the Air is 108B, without it
    # 106B. The 12B holds either way.
    values = registry.checkpoint("glm-4.5-air").values
    assert _billions(g.report_total_air.count(values)) == 108
    assert _billions(g.non_embedding_air.count(values)) == 106
    assert _billions(g.report_active_air.count(values)) == 12
    assert _billions(g.active_non_embedding_air.count(values)) == 12


def test_the_mtp_layer_is_layer_92_and_46():
    # num_nextn_predict_layers 1 in both configs; transformers drops model.layers.92.* and model.layers.46.* on load.
    assert g.router_bias.count(registry.checkpoint("glm-4.5").values) == (92 - 3) * 160
    assert g.router_bias.count(registry.checkpoint("glm-4.5-air").values) == (46 - 1) * 128


def test_the_released_files_hold_358_34b():
    # The count of zai-org/GLM-4.5's safetensors files as a model listing prints it, “358.34B Params”
    # [cite: glm45-listing]: the model, the routers' biases and the MTP layer with its own embeddings and head. Without
    # the MTP layer's copies of the embeddings and head it would be 356.79B: the checkpoint stores them.
    values = registry.checkpoint("glm-4.5").values
    assert round(g.checkpoint_count.count(values) / 10**7) == 35834
    assert round((g.checkpoint_count.count(values) - 2 * 151_552 * 5_120) / 10**7) == 35679


def test_a_listing_prints_the_total_as_the_active_count():
    # ApX's GLM-4.5 page: "Active Parameters 355B", "Total Expert Parameters 32.0B" [cite: apxml-glm45]; Table 1
    # gives 355B total and 32B activated [cite: glm2025].
    values = registry.checkpoint("glm-4.5").values
    g.active_as_total.check()
    assert _billions(g.active_as_total.claim) == 355
    assert _billions(g.active_as_total.correct.count(values)) == 32
