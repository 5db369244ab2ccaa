"""mBART (model_type ``mbart``): BART's reading (readers/bart.py) with MBartConfig's defaults: num_labels is
PreTrainedConfig's 2, and the fields are annotated without null."""

from __future__ import annotations

from ..reading import Reader, num_labels
from .. import validation
from . import bart

# MBartConfig's fields that set no size (configuration_mbart.py, 5.23): BartConfig's, most of them without null.
CHECKS = validation.fields(
    bart.CHECKS,
    encoder_layerdrop="float | int", decoder_layerdrop="float | int", is_encoder_decoder="bool",
    activation_function=validation.activation("str"), dropout=validation.dropout(),
    attention_dropout=validation.dropout(), activation_dropout=validation.dropout(), init_std=validation.deviation(),
    classifier_dropout=validation.dropout("float | int", "ForSequenceClassification"), scale_embedding="bool",
    is_decoder="bool",
    # PreTrainedConfig's return_dict (bool | None, unchecked there): MBartModel's forward fails on null.
    return_dict="some")

READER = Reader("mbart", bart.reader(num_labels, nullable=False), bart.LAYOUT, bart.FIELD_NAMES,
                (bart.HEADS_DIVIDE_WIDTH,),
                check=bart.check, checks=CHECKS)
