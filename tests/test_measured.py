"""``count`` on a model_type that is not derived (derivations.measured): never a dead end. Where torch and
transformers are installed it measures what transformers builds on the meta device, labelled as measured; without
them, one line says what to install and where the derived model_types are listed."""

from __future__ import annotations

import json

import in_process
import pytest

from derivations import configs, measured

# facebook/convnext-tiny-224's sizes (its config.json: four stages of 96, 192, 384 and 768 channels, 3, 3, 9 and 3
# blocks deep, the 1,000 ImageNet classes). torchvision documents the same network, convnext_tiny, with
# "num_params": 28589128 (torchvision/models/convnext.py, ConvNeXt_Tiny_Weights.IMAGENET1K_V1): a count from outside
# both this project and transformers. ConvNeXt is a convolutional network, which the project does not derive.
CONVNEXT_TINY = {"model_type": "convnext", "architectures": ["ConvNextForImageClassification"], "num_channels": 3,
                 "patch_size": 4, "num_stages": 4, "hidden_sizes": [96, 192, 384, 768], "depths": [3, 3, 9, 3],
                 "hidden_act": "gelu", "num_labels": 1000}
CONVNEXT_TINY_TORCHVISION = 28_589_128


def write(tmp_path, config: dict) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return str(path)


def test_convnext_tiny_is_measured_as_torchvision_counts_it(tmp_path):
    status, out, err = in_process.derivations("count", write(tmp_path, CONVNEXT_TINY), "--json")
    assert status == 0, err
    result = json.loads(out)
    assert result["total"] == CONVNEXT_TINY_TORCHVISION
    assert result["architecture"] == "ConvNextForImageClassification"
    # Labelled as measured, not derived, on the answer and beside it.
    assert "not derived" in result["measured"] and "meta device" in result["measured"]
    assert "is not derived here" in err and "measured by transformers" in err
    # The modules add up to the total; the eighteen blocks fold into one row a module.
    assert sum(c["count"] for c in result["components"]) == result["total"]
    names = [c["name"] for c in result["components"]]
    assert "convnext.encoder.stages.*.layers.*.pwconv1" in names and not any(".8." in name for name in names)
    stem = next(c for c in result["components"] if c["name"] == "convnext.embeddings.patch_embeddings")
    assert (stem["shapes"], stem["count"]) == ("96·3·4·4 + 96", 96 * 3 * 4 * 4 + 96)


def test_the_table_says_it_is_measured(tmp_path):
    status, out = in_process.printed("count", write(tmp_path, CONVNEXT_TINY))
    assert status == 0
    title, head = out.splitlines()[:2]
    assert title == "ConvNextForImageClassification, measured (not derived)"
    assert head.split() == ["module", "tensors", "parameters"]
    assert out.splitlines()[-1].split() == ["total", f"{CONVNEXT_TINY_TORCHVISION:,}"]


def test_a_tied_tensor_is_held_once_and_listed_with_zero(tmp_path):
    # M2M100's head is its shared token table (M2M100ForConditionalGeneration ties lm_head to model.shared).
    config = {"model_type": "m2m_100", "architectures": ["M2M100ForConditionalGeneration"], "encoder_layers": 1,
              "decoder_layers": 1}
    result = json.loads(in_process.derivations("count", write(tmp_path, config), "--json")[1])
    head = next(c for c in result["components"] if c["name"] == "lm_head")
    assert head["count"] == 0 and "tied to model.shared.weight" in head["shapes"]
    assert sum(c["count"] for c in result["components"]) == result["total"]


@pytest.mark.parametrize(("config", "arch", "said"), [
    ({"model_type": "gpt9"}, None, "neither derived"),  # transformers does not know it either
    ({"model_type": "m2m_100"}, "BertModel", "not a class of model_type"),
    ({"model_type": "m2m_100"}, "M2M100ForCooking", "no such model class"),
    ({"model_type": "m2m_100", "d_model": 30, "encoder_attention_heads": 4}, None, "transformers"),
    ({"model_type": "my_model", "auto_map": {"AutoModel": "modeling.MyModel"}}, None, "own code"),
])
def test_what_transformers_refuses_is_one_line(tmp_path, config, arch, said):
    argv = ["count", write(tmp_path, config)] + (["--arch", arch] if arch else [])
    status, out, err = in_process.derivations(*argv)
    assert (status, out) == (2, "")
    assert said in err and err.count("\n") == 1 and "Traceback" not in err


def test_without_torch_the_line_names_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(measured, "available", lambda: False)
    status, out, err = in_process.derivations("count", write(tmp_path, CONVNEXT_TINY))
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert configs.INSTALL in err and "coverage.html" in err and "derivations count --help" in err


@pytest.mark.parametrize("command", [["flops", "--seq", "8"], ["memory"], ["fit", "--memory", "16GB"]])
def test_only_count_measures(tmp_path, command):
    # FLOPs and memory come from a derivation only: the same line, which says that count measures.
    status, out, err = in_process.derivations(command[0], write(tmp_path, CONVNEXT_TINY), *command[1:])
    assert (status, out) == (2, "") and "not derived" in err and "count measures" in err
