"""Single-operator .tflite models for every operator and type umac's .tflite reader legalizes
(SUPPORTED in frontend/src/tflite/ops/mod.rs, except UNIDIRECTIONAL_SEQUENCE_LSTM, which
test/models/lstm covers), with TensorFlow Lite Micro's outputs as the reference.

The models are written directly as flatbuffers with the TFLite schema's Python object API (the
`schema_py_generated` module the tflite_micro package ships), no TensorFlow. Weights, biases,
quantization parameters and inputs are random with fixed seeds: running this again writes the
same bytes. See README.md for the layout and cases.json for what each case exercises. The
operators' builders are in compute_ops.py and movement_ops.py, what they share in
tflite_builder.py; this file lists the cases and writes them.

Run from the repository root with the venv holding tflite-micro, numpy and flatbuffers:
    .venv-models/bin/python test/models/tflite-ops/gen.py
"""
import json
import os
import shutil
import sys
import zlib

import numpy as np

from compute_ops import *  # noqa: F401,F403
from control_flow_ops import *  # noqa: F401,F403
from integer_ops import *  # noqa: F401,F403
from movement_ops import *  # noqa: F401,F403
from stateful_ops import *  # noqa: F401,F403
from tflite_builder import *  # noqa: F401,F403

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = 3  # inferences per case


# Cases the native reader does not take (umac falls back to tosa-converter-for-tflite): they are
# still compared with TFLite Micro. Found by check.py; see README.md.
NOT_NATIVE = set()
# Cases whose umac outputs currently differ from TFLite Micro's: case -> short reason. The test
# requires that they still differ, so that a fix is noticed (and the entry removed).
KNOWN_FAILURES = {}


# ---- the cases ------------------------------------------------------------------------------

INT_FLOAT = ("int8", "int16", "float32")


def binary_variants(mul=False):
    return [
        dict(a=[1, 4, 4, 3], b=[1, 4, 4, 3], scales=(0.05, 0.02), act="RELU6"),
        dict(a=[1, 5, 3, 3], b=[1, 1, 1, 3], scales=(0.002, 0.0011), act="RELU"),
        dict(a=[2, 1, 5], b=[3, 1], scales=(0.9, 0.3 if mul else 0.6), act="NONE", const=True),
    ]


CONV = [
    dict(in_=[1, 6, 6, 3], k=(3, 3), out=4, pad=SAME, act="RELU6", per_channel=True, scale=0.05, wscale=0.002),
    dict(in_=[1, 7, 5, 2], k=(3, 2), stride=(2, 2), out=3, pad=VALID, act="RELU", per_channel=False, scale=0.003,
         ofac=0.6),
    dict(in_=[2, 7, 7, 3], k=(3, 3), dil=(2, 2), stride=(1, 2), out=5, pad=SAME, act="NONE", per_channel=True,
         scale=0.9, wscale=0.002, ofac=2.0),
]
DEPTHWISE = [
    dict(in_=[1, 6, 6, 4], k=(3, 3), pad=SAME, act="RELU6", per_channel=True, scale=0.05, wscale=0.005),
    dict(in_=[1, 7, 5, 3], k=(3, 2), stride=(2, 2), mult=2, pad=VALID, act="RELU", per_channel=False, scale=0.004,
         ofac=0.6),
    dict(in_=[2, 7, 7, 3], k=(3, 3), dil=(2, 2), stride=(2, 1), pad=SAME, act="NONE", per_channel=True, scale=0.8,
         wscale=0.003, ofac=2.0),
]
FC = [
    dict(in_=[1, 16], out=6, act="RELU6", scale=0.05, wscale=0.003),
    dict(in_=[3, 13], out=5, act="RELU", scale=0.002, per_channel=True, ofac=0.7),
    dict(in_=[2, 9], out=7, act="NONE", scale=0.9, wscale=0.003, bias=False, ofac=2.0),
]
TCONV = [
    dict(in_=[1, 4, 4, 3], k=(3, 3), stride=(2, 2), out=4, pad=SAME, scale=0.05, wscale=0.004, act="RELU6"),
    dict(in_=[1, 3, 5, 2], k=(2, 3), stride=(1, 2), out=3, pad=VALID, scale=0.003, per_channel=False, act="RELU"),
    dict(in_=[1, 3, 3, 4], k=(3, 3), stride=(2, 2), out=2, pad=VALID, scale=0.7, wscale=0.004, bias=False),
]
AVG = [
    dict(in_=[1, 6, 6, 3], k=(2, 2), stride=(2, 2), pad=VALID, scale=0.05, act="RELU6"),
    dict(in_=[1, 7, 5, 2], k=(3, 3), stride=(1, 1), pad=SAME, scale=0.002, act="RELU"),
    dict(in_=[2, 5, 7, 3], k=(3, 2), stride=(2, 2), pad=SAME, scale=0.9),
]
MEAN = [
    dict(in_=[1, 4, 5, 3], axes=[1, 2], keep=True, scales=(0.05, 0.05)),
    dict(in_=[2, 4, 5, 8], axes=[1, 2], keep=False, scales=(0.02, 0.007)),
    dict(in_=[2, 3, 7], axes=[2], keep=True, scales=(0.5, 0.9)),
]


def variants(vs):
    return [{("in" if k == "in_" else k): v for k, v in d.items()} for d in vs]


OPS = [
    ("ADD", BIN.ADD, INT_FLOAT, binary(BIN.ADD, s.AddOptionsT, OPTIONS.AddOptions), binary_variants()),
    ("SUB", BIN.SUB, INT_FLOAT, binary(BIN.SUB, s.SubOptionsT, OPTIONS.SubOptions), binary_variants()),
    ("MUL", BIN.MUL, INT_FLOAT, binary(BIN.MUL, s.MulOptionsT, OPTIONS.MulOptions), binary_variants(True)),
    ("CONV_2D", BIN.CONV_2D, INT_FLOAT, conv_like("conv"), variants(CONV)),
    ("DEPTHWISE_CONV_2D", BIN.DEPTHWISE_CONV_2D, INT_FLOAT, conv_like("depthwise"), variants(DEPTHWISE)),
    ("FULLY_CONNECTED", BIN.FULLY_CONNECTED, INT_FLOAT, fully_connected, variants(FC)),
    ("TRANSPOSE_CONV", BIN.TRANSPOSE_CONV, INT_FLOAT, transpose_conv, variants(TCONV)),
    ("AVERAGE_POOL_2D", BIN.AVERAGE_POOL_2D, INT_FLOAT, pool(BIN.AVERAGE_POOL_2D), variants(AVG)),
    ("MAX_POOL_2D", BIN.MAX_POOL_2D, INT_FLOAT, pool(BIN.MAX_POOL_2D), variants(AVG)),
    ("MEAN", BIN.MEAN, INT_FLOAT, reducer(BIN.MEAN), variants(MEAN)),
    ("LEAKY_RELU", BIN.LEAKY_RELU, INT_FLOAT, leaky_relu, [
        dict(**{"in": [1, 4, 4, 3]}, alpha=0.2, scales=(0.05, 0.03)),
        dict(**{"in": [2, 17]}, alpha=0.01, scales=(0.002, 0.001)),
        dict(**{"in": [1, 3, 5, 2]}, alpha=0.7, scales=(0.9, 1.0)),
    ]),
    ("SOFTMAX", BIN.SOFTMAX, INT_FLOAT, softmax, [
        dict(**{"in": [1, 10]}, beta=1.0, scale=0.1),
        dict(**{"in": [2, 3, 7]}, beta=0.5, scale=0.02),
        dict(**{"in": [1, 4, 4, 12]}, beta=1.0, scale=0.004),
    ]),
    ("PAD", BIN.PAD, ("int8", "int16", "int32", "float32"), pad_op(False), [
        dict(**{"in": [1, 3, 3, 2]}, pads=[[0, 0], [1, 1], [1, 1], [0, 0]], scale=0.05),
        dict(**{"in": [1, 4, 5, 3]}, pads=[[0, 0], [2, 0], [0, 3], [1, 2]], scale=0.003),
        dict(**{"in": [3, 7]}, pads=[[1, 2], [0, 4]], scale=0.9),
    ]),
    ("PADV2", BIN.PADV2, INT_FLOAT, pad_op(True), [
        dict(**{"in": [1, 3, 3, 2]}, pads=[[0, 0], [1, 1], [1, 1], [0, 0]], value=17, scale=0.05),
        dict(**{"in": [1, 4, 5, 3]}, pads=[[0, 0], [2, 0], [0, 3], [1, 2]], value=-100, scale=0.003),
        dict(**{"in": [3, 7]}, pads=[[1, 2], [0, 4]], value=-5, scale=0.9, value_shape1=True),
    ]),
    ("QUANTIZE", BIN.QUANTIZE, ("int8", "int16", "float32"), quantize, None),
    ("DEQUANTIZE", BIN.DEQUANTIZE, ("int8", "int16"), dequantize, [
        dict(**{"in": [1, 4, 4, 3]}, scale=0.05),
        dict(**{"in": [2, 17]}, scale=0.001),
        dict(**{"in": [1, 3, 5, 2]}, scale=0.9),
    ]),
    ("RESHAPE", BIN.RESHAPE, ("int8", "int16", "int32", "float32"), reshape, [
        dict(**{"in": [1, 4, 6]}, to=[1, 24]),
        dict(**{"in": [2, 3, 4]}, to=[4, -1]),
        dict(**{"in": [1, 2, 3, 5]}, to=[1, 6, 5], shape_tensor=False),
    ]),
    ("STRIDED_SLICE", BIN.STRIDED_SLICE, ("int8", "int16", "int32", "float32"), strided_slice, [
        dict(**{"in": [1, 6, 6, 3]}, begin=[0, 1, 1, 0], end=[1, 5, 6, 3], strides=[1, 1, 1, 1]),
        dict(**{"in": [1, 7, 8, 4]}, begin=[0, 1, -6, 1], end=[0, -1, 0, 4], strides=[1, 1, 1, 1], begin_mask=1,
             end_mask=5),
        dict(**{"in": [3, 9]}, begin=[1, 2], end=[2, -1], strides=[1, 1], shrink=1),
        dict(**{"in": [1, 7, 8, 4]}, begin=[0, 1, -6, 1], end=[0, -1, 0, 4], strides=[1, 2, 3, 2], begin_mask=1,
             end_mask=5),
        # negative strides: reversed, with masks and a shrunk axis
        dict(**{"in": [2, 7, 8, 4]}, begin=[1, 6, -2, 0], end=[0, 0, 0, 4], strides=[1, -2, -3, 1], end_mask=2,
             shrink=1),
    ]),
]

UNARY_FLOAT = [
    dict(**{"in": [1, 4, 4, 3]}, spread=1.5),
    dict(**{"in": [2, 17]}, spread=4.0),
    dict(**{"in": [1, 3, 5, 2]}, spread=0.3),
]
UNARY_INT = [
    dict(**{"in": [1, 4, 4, 3]}, scales=(0.05, 0.05)),
    dict(**{"in": [2, 17]}, scales=(0.002, 0.001)),
    dict(**{"in": [1, 3, 5, 2]}, scales=(0.9, 0.6)),
]
for _name in ["ABS", "CEIL", "COS", "ELU", "EXP", "FLOOR", "HARD_SWISH", "LOG", "LOGISTIC", "NEG", "RELU", "RELU6",
              "ROUND", "RSQRT", "SIN", "SQRT", "SQUARE", "TANH"]:
    _types = ("int8", "int16", "float32") if _name in ("ABS", "RELU", "RELU6") else ("float32",)
    OPS.append((_name, getattr(BIN, _name), _types, unary(getattr(BIN, _name), _name),
                {t: (UNARY_FLOAT if t == "float32" else UNARY_INT) for t in _types}))
ACTIVATION_VARIANTS = [
    dict(**{"in": [4, 64]}, scale=0.06, out=0.5, scale16=2.0 ** -12),
    dict(**{"in": [1, 5, 7, 3]}, scale=0.02, out=0.3, scale16=0.0007),
    dict(**{"in": [2, 17]}, scale=0.3, out=1.0, scale16=2.0 ** -11),
]
for _name in ["LOGISTIC", "TANH", "HARD_SWISH", "ELU", "RSQRT"]:
    _types = ("int8", "int16") if _name in ("LOGISTIC", "TANH") else ("int8",)
    OPS.append((_name, getattr(BIN, _name), _types, quantized_activation(getattr(BIN, _name), _name),
                ACTIVATION_VARIANTS))
for _name in ["MAXIMUM", "MINIMUM"]:
    OPS.append((_name, getattr(BIN, _name), ("int8", "int16", "int32", "float32"), min_max(getattr(BIN, _name)), [
        dict(a=[1, 4, 4, 3], b=[1, 4, 4, 3], scales=(0.05,)),
        dict(a=[1, 5, 3, 3], b=[1, 1, 1, 3], scales=(0.002,)),
        dict(a=[2, 1, 5], b=[3, 1], scales=(0.9,), const=True),
    ]))
OPS.append(("DIV", BIN.DIV, ("float32",), float_binary(BIN.DIV, s.DivOptionsT, OPTIONS.DivOptions),
            [dict(v, act=act) for v, act in zip(binary_variants(), ["NONE", "RELU", "RELU6"])]))
OPS.append(("DIV", BIN.DIV, ("int8",), div_int8, [
    dict(a=[1, 4, 4, 3], b=[1, 4, 4, 3], scales=(0.05, 0.05, 0.25),
         note="output shift 5: small dividends over large divisors shift past 31 bits"),
    dict(a=[1, 5, 3, 3], b=[1, 1, 1, 3], scales=(0.02, 0.1, 0.01), act="RELU"),
    dict(a=[2, 1, 5], b=[3, 1], scales=(0.5, 0.005, 1.0), const=True),
]))
OPS.append(("SQUARED_DIFFERENCE", BIN.SQUARED_DIFFERENCE, ("float32",), float_binary(BIN.SQUARED_DIFFERENCE, None, 0),
            binary_variants()))


REDUCE = [
    dict(**{"in": [1, 4, 5, 3]}, axes=[1, 2], keep=True, scales=(0.05, 0.05)),
    dict(**{"in": [2, 4, 5, 8]}, axes=[1, 2], keep=False, scales=(0.02, 0.007)),
    dict(**{"in": [2, 3, 7]}, axes=[-1], keep=True, scales=(0.5, 0.9)),
]
SUM = [
    dict(**{"in": [1, 4, 5, 3]}, axes=[1, 2], keep=True, scales=(0.05, 0.3)),
    dict(**{"in": [2, 4, 5, 8]}, axes=[0, 3], keep=False, scales=(0.02, 0.1)),
    dict(**{"in": [2, 3, 7]}, axes=[2], keep=True, scales=(0.5, 2.5)),
]
for _name, _types, _vs in [("SUM", INT_FLOAT, SUM), ("REDUCE_MAX", ("int8", "float32"), REDUCE),
                           ("REDUCE_MIN", ("int8", "float32"), REDUCE)]:
    OPS.append((_name, getattr(BIN, _name), _types, reducer(getattr(BIN, _name)), _vs))
for _name, _cls, _otype in [("ARG_MAX", s.ArgMaxOptionsT, OPTIONS.ArgMaxOptions),
                            ("ARG_MIN", s.ArgMinOptionsT, OPTIONS.ArgMinOptions)]:
    OPS.append((_name, getattr(BIN, _name), ("int8", "float32"), arg_min_max(getattr(BIN, _name), _cls, _otype), [
        dict(**{"in": [1, 4, 4, 3]}, axis=3, scale=0.05),
        dict(**{"in": [2, 17]}, axis=-1, scale=0.5),
        dict(**{"in": [2, 3, 5]}, axis=1, scale=0.9),
    ]))
COMPARE = [
    dict(a=[1, 4, 4, 3], b=[1, 4, 4, 3], scales=(0.05, 0.05)),
    dict(a=[1, 5, 3, 3], b=[1, 1, 1, 3], scales=(0.02, 0.05)),
    dict(a=[2, 1, 5], b=[3, 1], scales=(0.9, 0.3), const=True),
]
for _name in ["EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"]:
    _types = ("int8", "int32", "float32") + (("bool",) if _name in ("EQUAL", "NOT_EQUAL") else ())
    OPS.append((_name, getattr(BIN, _name), _types, comparison(getattr(BIN, _name)), COMPARE))
OPS.append(("SELECT_V2", BIN.SELECT_V2, INT_FLOAT, select_v2, [
    dict(cond=[1, 4, 4, 3], a=[1, 4, 4, 3], b=[1, 4, 4, 3]),
    dict(cond=[1, 1, 3], a=[2, 4, 3], b=[2, 4, 3]),
    dict(cond=[3, 1], a=[1, 5], b=[3, 5], const=True),
]))
for _name in ["LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT"]:
    OPS.append((_name, getattr(BIN, _name), ("bool",), logical(getattr(BIN, _name)), [
        dict(a=[1, 4, 4, 3], b=[1, 4, 4, 3]),
        dict(a=[2, 5, 3], b=[1, 1, 3]),
    ]))
OPS.append(("CAST", BIN.CAST, ("int8", "int16", "int32", "float32", "bool"), cast, {
    "int8": [dict(**{"in": [2, 17]}, to="int32"), dict(**{"in": [3, 5]}, to="float32"),
             dict(**{"in": [4, 3]}, to="int16")],
    "int16": [dict(**{"in": [2, 17]}, to="int8"), dict(**{"in": [3, 5]}, to="float32")],
    "int32": [dict(**{"in": [2, 17]}, to="int8"), dict(**{"in": [3, 5]}, to="float32"),
              dict(**{"in": [4, 3]}, to="int16")],
    "float32": [dict(**{"in": [2, 17]}, to="int32", spread=1000.0), dict(**{"in": [3, 5]}, to="int8", spread=30.0),
                dict(**{"in": [4, 3]}, to="int16", spread=3.0)],
    "bool": [dict(**{"in": [2, 17]}, to="int32"), dict(**{"in": [3, 5]}, to="float32")],
}))
for _name in ["FLOOR_DIV", "FLOOR_MOD"]:
    OPS.append((_name, getattr(BIN, _name), ("float32",), float_binary(getattr(BIN, _name), None, 0),
                binary_variants()))


RESIZE = [
    dict(**{"in": [1, 3, 4, 2]}, size=[6, 8]),
    dict(**{"in": [1, 4, 4, 3]}, size=[7, 5], align=True),
    dict(**{"in": [2, 5, 3, 2]}, size=[3, 7], half=True),
]
OPS.append(("RESIZE_BILINEAR", BIN.RESIZE_BILINEAR, ("int8", "float32"),
            resize(BIN.RESIZE_BILINEAR, s.ResizeBilinearOptionsT, OPTIONS.ResizeBilinearOptions), RESIZE))
OPS.append(("RESIZE_NEAREST_NEIGHBOR", BIN.RESIZE_NEAREST_NEIGHBOR, INT_FLOAT,
            resize(BIN.RESIZE_NEAREST_NEIGHBOR, s.ResizeNearestNeighborOptionsT,
                   OPTIONS.ResizeNearestNeighborOptions), RESIZE))


OPS.append(("SQUARED_DIFFERENCE", BIN.SQUARED_DIFFERENCE, ("int8", "int16"), squared_difference_q, [
    dict(a=[1, 4, 4, 3], b=[1, 4, 4, 3], scales=(0.05, 0.02)),
    dict(a=[1, 5, 3, 3], b=[1, 1, 1, 3], scales=(0.002, 0.0011)),
    dict(a=[2, 1, 5], b=[3, 1], scales=(0.9, 0.6), const=True),
]))
OPS.append(("PRELU", BIN.PRELU, INT_FLOAT, prelu, [
    dict(**{"in": [1, 4, 4, 3]}, alpha=[1, 1, 3], scale=0.05, alpha_scale=0.01, const=True),
    dict(**{"in": [1, 5, 3, 3]}, alpha=[1, 5, 3, 3], scale=0.002, alpha_scale=0.004, ofac=0.7),
    dict(**{"in": [2, 3, 5]}, alpha=[5], scale=0.9, alpha_scale=0.02, ofac=1.3, const=True),
]))


OPS.append(("BATCH_MATMUL", BIN.BATCH_MATMUL, INT_FLOAT, batch_matmul, [
    dict(a=[2, 3, 4], b=[2, 4, 5], scales=(0.05, 0.02)),
    dict(a=[1, 2, 3, 4], b=[4, 5], scales=(0.002, 0.01), const=True),
    dict(a=[3, 4, 2], b=[1, 5, 4], scales=(0.9, 0.3), adj_x=True, adj_y=True),
]))


OPS.append(("ADD_N", BIN.ADD_N, ("int8", "float32"), add_n, [
    dict(**{"in": [1, 4, 4, 3]}, n=3, scale=0.05),
    dict(**{"in": [2, 17]}, n=2, scale=0.002),
    dict(**{"in": [1, 3, 5, 2]}, n=4, scale=0.9),
]))
OPS.append(("CUMSUM", BIN.CUMSUM, ("int8", "float32"), cumsum, [
    dict(**{"in": [2, 5, 3]}, axis=1, scale=0.05),
    dict(**{"in": [1, 4, 6]}, axis=-1, scale=0.02, exclusive=True),
    dict(**{"in": [7, 3]}, axis=0, scale=0.3, exclusive=True, reverse=True),
    # a longer axis (int8 sums in log2 steps of shifted copies; float32 runs only up to 64)
    dict(**{"in": [2, 300]}, axis=1, scale=0.01, reverse=True, only=("int8",)),
]))
OPS.append(("SVDF", BIN.SVDF, ("int8", "float32"), svdf, {
    "int8": [dict(**{"in": [1, 12]}, filters=8, rank=2, memory=3, scale=0.05),
             dict(**{"in": [2, 7]}, filters=6, rank=1, memory=2, scale=0.003, state="int8"),
             dict(**{"in": [1, 20]}, filters=4, rank=4, memory=1, scale=0.5, wscale=0.002)],
    "float32": [dict(**{"in": [2, 9]}, filters=6, rank=3, memory=2, act="RELU"),
                dict(**{"in": [1, 16]}, filters=8, rank=1, memory=3)],
}))
OPS.append(("ASSIGN_VARIABLE", BIN.ASSIGN_VARIABLE, ("int8", "float32"), variables, [
    dict(**{"in": [1, 6]}),
    dict(**{"in": [2, 3, 4]}, reread=True, second=True, scale=0.02),
]))
OPS.append(("CALL_ONCE", BIN.CALL_ONCE, ("int8", "float32"), variables, [
    dict(**{"in": [1, 6]}, init=True),
    dict(**{"in": [3, 5]}, init=True, reread=True, second=True, scale=0.3),
    dict(**{"in": [2, 4]}, init=True, init_computes=True, scale=0.02),
    dict(**{"in": [1, 7]}, init=True, late_call=True, reread=True),
]))
OPS.append(("IF", BIN.IF, ("int8", "float32"), if_op, [
    dict(**{"in": [1, 6]}),
    dict(**{"in": [2, 3, 4]}, scale=0.02),
]))
OPS.append(("WHILE", BIN.WHILE, ("int8", "float32"), while_op, [
    dict(**{"in": [1, 5]}),
    dict(**{"in": [2, 3]}, scale=0.3),
]))
OPS.append(("L2_POOL_2D", BIN.L2_POOL_2D, ("float32",), pool(BIN.L2_POOL_2D), variants(AVG)))
for _name in ["LOG_SOFTMAX", "L2_NORMALIZATION"]:
    OPS.append((_name, getattr(BIN, _name), ("float32", "int8"),
                float_last_axis(getattr(BIN, _name)), [
        dict(**{"in": [1, 10]}, spread=1.5, scale=0.05),
        dict(**{"in": [2, 3, 7]}, spread=4.0, scale=0.3),
        dict(**{"in": [1, 4, 4, 12]}, spread=0.3, scale=0.002),
    ]))
OPS.append(("EMBEDDING_LOOKUP", BIN.EMBEDDING_LOOKUP, ("int8", "float32"), embedding_lookup, {
    "int8": [dict(ids=5, table=[10, 4], scale=0.05), dict(ids=7, table=[6, 2, 3], scale=0.02, to="float32")],
    "float32": [dict(ids=4, table=[9, 5])],
}))
OPS.append(("BROADCAST_ARGS", BIN.BROADCAST_ARGS, ("int32",), broadcast_args, [
    dict(a=[2, 3, 4], b=[1, 4]),
    dict(a=[5, 1], b=[3, 1, 6]),
]))


# Data movement: the types TFLite Micro's kernel takes. The kernels copy elements whatever their
# type, so only their size matters: int8 runs every variant, each other type one (`spread`), to
# keep the suite small (SHAPE and ZEROS_LIKE, whose outputs do not depend on the input's values:
# every type one).
ALL4 = ("int8", "int16", "int32", "float32")


def spread(types, vs, float32=(0,), int8=None):
    """`vs` for int8 (or `int8`'s), variant 1 for int16 and int64, 2 for int32, `float32`'s for
    float32: each variant's `only` lists the types that run it."""
    which = {"int8": range(len(vs)) if int8 is None else int8, "int16": (1,), "int32": (2,), "int64": (1,),
             "float32": float32}
    return [dict(v, only=tuple(t for t in types if n in which[t])) for n, v in enumerate(vs)]


MOVE = [
    ("BROADCAST_TO", ALL4, one_to_one(BIN.BROADCAST_TO), spread(ALL4, [
        dict(**{"in": [3, 1]}, consts=[("shape", [2, 3, 4])], out=[2, 3, 4]),
        dict(**{"in": [1, 3, 1, 2]}, consts=[("shape", [2, 3, 4, 2])], out=[2, 3, 4, 2], scale=0.003),
        dict(**{"in": [5]}, consts=[("shape", [3, 1, 5])], out=[3, 1, 5], scale=0.9),
    ]) + [
        # what TFLite's own tests write: a BroadcastToOptions table (union tag 104)
        dict(**{"in": [3, 1]}, consts=[("shape", [2, 3, 4])], out=[2, 3, 4], only=("int8",),
             table=(OPTIONS.BroadcastToOptions, s.BroadcastToOptionsT)),
    ]),
    ("CONCATENATION", ALL4, concatenation, spread(ALL4, [
        dict(ins=[[1, 3, 3, 2], [1, 3, 3, 3]], axis=3),
        dict(ins=[[2, 2, 3], [2, 1, 3], [2, 3, 3]], axis=-2, scale=0.003),
        dict(ins=[[2, 5], [1, 5], [1, 5], [3, 5]], axis=0, const=(2,), scale=0.9),
    ])),
    ("DEPTH_TO_SPACE", ("int8", "float32"), one_to_one(BIN.DEPTH_TO_SPACE, OPTIONS.DepthToSpaceOptions,
                                                       s.DepthToSpaceOptionsT), spread(("int8", "float32"), [
        dict(**{"in": [1, 2, 3, 8]}, opt=dict(blockSize=2), out=[1, 4, 6, 2]),
        dict(**{"in": [2, 2, 1, 9]}, opt=dict(blockSize=3), out=[2, 6, 3, 1], scale=0.003),
        dict(**{"in": [1, 2, 2, 12]}, opt=dict(blockSize=2), out=[1, 4, 4, 3], scale=0.9),
    ], float32=(1,))),
    ("EXPAND_DIMS", INT_FLOAT, one_to_one(BIN.EXPAND_DIMS, OPTIONS.ExpandDimsOptions, s.ExpandDimsOptionsT),
     spread(INT_FLOAT, [
         dict(**{"in": [3, 4]}, consts=[("axis", 0, True)], out=[1, 3, 4]),
         dict(**{"in": [2, 3, 5]}, consts=[("axis", -1, True)], out=[2, 3, 5, 1], scale=0.003),
         dict(**{"in": [4, 6]}, consts=[("axis", [1])], out=[4, 1, 6], scale=0.9),
     ], float32=(2,))),
    ("FILL", ("int8", "int32", "float32"), fill, spread(("int8", "int32", "float32"), [
        dict(dims=[2, 3]),
        dict(dims=[1, 3, 4, 2], scale=0.003),
        dict(dims=[7], scale=0.9),
    ], float32=(1,))),
    ("GATHER", ("int8", "float32"), one_to_one(BIN.GATHER, OPTIONS.GatherOptions, s.GatherOptionsT),
     spread(("int8", "float32"), [
         dict(**{"in": [5, 4]}, consts=[("indices", [4, 0, 2])], opt=dict(axis=0), out=[3, 4]),
         dict(**{"in": [2, 6, 3]}, consts=[("indices", [[5, 0], [1, 1]])], opt=dict(axis=-2), out=[2, 2, 2, 3],
              scale=0.003),
         dict(**{"in": [2, 5, 3]}, consts=[("indices", [[4, 1, 1, 0], [0, 3, 2, 4]])],
              opt=dict(axis=1, batchDims=1), out=[2, 4, 3], scale=0.9),
     ], float32=(2,))),
    ("PACK", ALL4, pack, spread(ALL4, [
        dict(**{"in": [3, 4]}, n=2, axis=0),
        dict(**{"in": [2, 5]}, n=3, axis=-1, scale=0.003),
        dict(**{"in": [1, 3, 2]}, n=4, axis=1, scale=0.9),
    ])),
    ("REVERSE_V2", ALL4, one_to_one(BIN.REVERSE_V2, OPTIONS.ReverseV2Options, s.ReverseV2OptionsT), spread(ALL4, [
        dict(**{"in": [2, 5]}, consts=[("axes", [1])], out=[2, 5]),
        dict(**{"in": [1, 4, 3, 2]}, consts=[("axes", [1, 2])], out=[1, 4, 3, 2], scale=0.003),
        dict(**{"in": [3, 4, 2]}, consts=[("axes", [-3])], out=[3, 4, 2], scale=0.9),
    ])),
    ("SHAPE", ALL4, shape_op, spread(ALL4, [
        dict(**{"in": [1, 3, 3, 2]}),
        dict(**{"in": [2, 7]}),
        dict(**{"in": [3, 1, 2, 1, 2]}),
    ], int8=(0,))),
    ("SLICE", ALL4, one_to_one(BIN.SLICE, OPTIONS.SliceOptions, s.SliceOptionsT), spread(ALL4, [
        dict(**{"in": [1, 5, 4, 3]}, consts=[("begin", [0, 1, 2, 0]), ("size", [1, 3, 2, 3])], out=[1, 3, 2, 3]),
        dict(**{"in": [3, 7]}, consts=[("begin", [1, 2]), ("size", [-1, 4])], out=[2, 4], scale=0.003),
        dict(**{"in": [2, 4, 3, 2]}, consts=[("begin", [1, 0, 1, 1]), ("size", [1, -1, 2, 1])], out=[1, 4, 2, 1],
             scale=0.9),
    ])),
    ("SPACE_TO_DEPTH", ("int8", "float32"), one_to_one(BIN.SPACE_TO_DEPTH, OPTIONS.SpaceToDepthOptions,
                                                       s.SpaceToDepthOptionsT), spread(("int8", "float32"), [
        dict(**{"in": [1, 4, 6, 2]}, opt=dict(blockSize=2), out=[1, 2, 3, 8]),
        dict(**{"in": [2, 6, 3, 1]}, opt=dict(blockSize=3), out=[2, 2, 1, 9], scale=0.003),
        dict(**{"in": [1, 4, 4, 3]}, opt=dict(blockSize=4), out=[1, 1, 1, 48], scale=0.9),
    ], float32=(1,))),
    ("SPLIT", ALL4, several_outputs(BIN.SPLIT), spread(ALL4, [
        dict(**{"in": [1, 3, 4, 3]}, axis=3, n=3),
        dict(**{"in": [6, 5]}, axis=0, n=2, scale=0.003),
        dict(**{"in": [2, 3, 6]}, axis=-1, n=3, scale=0.9),
    ])),
    ("SPLIT_V", ALL4, several_outputs(BIN.SPLIT_V), spread(ALL4, [
        dict(**{"in": [1, 3, 2, 5]}, axis=3, sizes=[2, 3]),
        dict(**{"in": [7, 4]}, axis=0, sizes=[1, 4, 2], scale=0.003),
        dict(**{"in": [2, 9, 3]}, axis=-2, sizes=[3, -1, 2], scale=0.9),
    ])),
    ("SQUEEZE", ALL4, one_to_one(BIN.SQUEEZE, OPTIONS.SqueezeOptions, s.SqueezeOptionsT), spread(ALL4, [
        dict(**{"in": [1, 4, 1, 3]}, out=[4, 3]),
        dict(**{"in": [2, 1, 5, 1]}, opt=dict(squeezeDims=[1]), out=[2, 5, 1], scale=0.003),
        dict(**{"in": [1, 3, 1, 1, 2]}, opt=dict(squeezeDims=[-2, 0]), out=[3, 1, 2], scale=0.9),
    ])),
    ("TRANSPOSE", INT_FLOAT, one_to_one(BIN.TRANSPOSE, OPTIONS.TransposeOptions, s.TransposeOptionsT),
     spread(INT_FLOAT, [
         dict(**{"in": [1, 3, 4, 2]}, consts=[("perm", [0, 3, 1, 2])], out=[1, 2, 3, 4]),
         dict(**{"in": [3, 7]}, consts=[("perm", [1, 0])], out=[7, 3], scale=0.003),
         dict(**{"in": [2, 1, 3, 4, 2]}, consts=[("perm", [4, 2, 0, 3, 1])], out=[2, 3, 2, 4, 1], scale=0.9),
     ], float32=(2,))),
    ("UNPACK", ALL4, several_outputs(BIN.UNPACK), spread(ALL4, [
        dict(**{"in": [3, 4]}, axis=0),
        dict(**{"in": [2, 5, 3]}, axis=-1, scale=0.003),
        dict(**{"in": [4, 2, 3]}, axis=1, scale=0.9),
    ])),
    ("ZEROS_LIKE", ("int8", "int32", "int64", "float32"), zeros_like, spread(("int8", "int32", "int64", "float32"), [
        dict(**{"in": [1, 3, 3, 2]}),
        dict(**{"in": [2, 7]}, scale=0.003),
        dict(**{"in": [3, 1, 5]}, scale=0.9),
    ], int8=(0,))),
]

MOVE += [
    ("SPACE_TO_BATCH_ND", ("int8", "float32"), space_batch(BIN.SPACE_TO_BATCH_ND), spread(("int8", "float32"), [
        dict(**{"in": [1, 4, 6, 3]}, block=[2, 2], pads=[[0, 0], [0, 0]]),
        dict(**{"in": [2, 5, 3, 2]}, block=[2, 3], pads=[[1, 0], [2, 1]], scale=0.003),
        dict(**{"in": [1, 5, 2]}, block=[3], pads=[[2, 2]], scale=0.9),
    ], float32=(1,))),
    ("BATCH_TO_SPACE_ND", ("int8", "float32"), space_batch(BIN.BATCH_TO_SPACE_ND), spread(("int8", "float32"), [
        dict(**{"in": [4, 2, 3, 3]}, block=[2, 2], pads=[[0, 0], [0, 0]]),
        dict(**{"in": [12, 3, 2, 2]}, block=[2, 3], pads=[[1, 0], [2, 1]], scale=0.003),
        dict(**{"in": [6, 3, 2]}, block=[3], pads=[[2, 1]], scale=0.9),
    ], float32=(1,))),
    ("GATHER_ND", ("int8", "float32"), gather_nd, spread(("int8", "float32"), [
        dict(**{"in": [4, 3, 2]}, indices=[[0, 1], [3, 2], [1, 0]]),
        dict(**{"in": [5, 4]}, indices=[[[4], [0]], [[2], [2]]], scale=0.003),
        dict(**{"in": [2, 3, 4]}, indices=[[1, 2, 3], [0, 0, 0]], scale=0.9),
    ], float32=(1,))),
    ("MIRROR_PAD", ("int8", "float32"), mirror_pad, spread(("int8", "float32"), [
        dict(**{"in": [1, 4, 5, 3]}, pads=[[0, 0], [1, 2], [2, 0], [0, 0]], symmetric=False),
        dict(**{"in": [1, 4, 5, 3]}, pads=[[0, 0], [3, 4], [1, 5], [0, 0]], symmetric=True, scale=0.003),
        dict(**{"in": [3, 6]}, pads=[[2, 2], [5, 3]], symmetric=False, scale=0.9),
    ], float32=(2,))),
]
OPS += [(name, getattr(BIN, name), types, build, vs) for name, types, build, vs in MOVE]


QUANTIZE = {
    "int8": [dict(**{"in": [1, 4, 4, 3]}, to="int8", scales=(0.05, 0.02)),
             dict(**{"in": [2, 17]}, to="int16", scales=(0.002, 0.0001)),
             dict(**{"in": [1, 3, 5, 2]}, to="int8", scales=(0.9, 1.0))],
    "float32": [dict(**{"in": [1, 4, 4, 3]}, to="int8", scales=(None, 0.05)),
                dict(**{"in": [2, 17]}, to="int8", scales=(None, 0.0073)),
                dict(**{"in": [1, 3, 5, 2]}, to="int16", scales=(None, 0.001)),
                dict(**{"in": [2, 33]}, to="int16", scales=(None, 2.0 ** -12))],
    "int16": [dict(**{"in": [1, 4, 4, 3]}, to="int8", scales=(0.0005, 0.05)),
              dict(**{"in": [2, 17]}, to="int16", scales=(0.0001, 0.0003)),
              dict(**{"in": [1, 3, 5, 2]}, to="int16", scales=(0.01, 0.007))],
}


# Models the reader must refuse: name -> (the operator's label, part of the message).
INVALID = {
    "svdf_state_not_variable": ("operator #0 (SVDF", "not a variable tensor"),
    "call_once_cycle": ("operator #0 (CALL_ONCE)", "already being run"),
    "call_once_bad_index": ("operator #0 (CALL_ONCE)", "is not one of the model's subgraphs 1 to 1"),
    "read_never_assigned": ("operator #1 (READ_VARIABLE", "never assigned"),
    "svdf_hybrid": ("operator #0 (SVDF", "hybrid"),
}


def write_invalid():
    d = os.path.join(HERE, "invalid")
    os.makedirs(d, exist_ok=True)
    for name, (operator, message) in INVALID.items():
        with open(os.path.join(d, name + ".tflite"), "wb") as f:
            f.write(invalid_state(name).finish())
    with open(os.path.join(d, "invalid.json"), "w") as f:
        json.dump([{"file": name + ".tflite", "operator": op, "message": msg} for name, (op, msg) in INVALID.items()],
                  f, indent=1)
        f.write("\n")


def main():
    only = sys.argv[1:]
    ref = os.path.join(HERE, "ref")
    if not only:
        for f in os.listdir(HERE):
            if f.endswith(".tflite"):
                os.remove(os.path.join(HERE, f))
        shutil.rmtree(ref, ignore_errors=True)
    cases, dropped = [], []
    for name, code, types, build, vs in OPS:
        for tname in types:
            per_type = QUANTIZE if vs is None else vs if isinstance(vs, dict) else None
            for n, v in enumerate(per_type[tname] if per_type else vs):
                case = f"{name.lower()}_{tname}_{n}"
                if only and case not in only and name not in only or tname not in v.get("only", (tname,)):
                    continue
                rng = np.random.default_rng(zlib.crc32(case.encode()))
                model, desc = build(rng, tname, v)
                data = model.finish()
                inputs = []
                for _ in range(INPUTS):
                    if hasattr(model, "make_input"):  # inputs with a meaning (ids, shapes)
                        inputs.append(model.make_input(rng))
                        continue
                    inputs.append([random_input(rng, model.tensors[i].shape, NP[model.tensors[i].type],
                                                getattr(model, "input_scale", 1.5), getattr(model, "positive", False),
                                                getattr(model, "whole", False))
                                   for i in model.inputs])
                try:
                    n_outputs = len(model.output_tensors())
                    outputs = run_tflm(data, inputs, n_outputs)
                except Exception as e:  # noqa: BLE001 - TFLM refuses the model: not a test case
                    dropped.append((case, desc, str(e).strip().splitlines()[-1] if str(e).strip() else repr(e)))
                    print("DROPPED", case, desc, e, file=sys.stderr)
                    continue
                with open(os.path.join(HERE, case + ".tflite"), "wb") as f:
                    f.write(data)
                d = os.path.join(ref, case)
                os.makedirs(d, exist_ok=True)
                for k, (xs, ys) in enumerate(zip(inputs, outputs)):
                    for j, x in enumerate(xs):
                        np.save(os.path.join(d, f"input_{k}.npy" if j == 0 else f"input_{k}_{j}.npy"), x)
                    for j, y in enumerate(ys):
                        np.save(os.path.join(d, f"output_{k}.npy" if j == 0 else f"output_{k}_{j}.npy"), y)
                entry = {"file": case + ".tflite", "ref": "ref/" + case, "op": name, "type": tname,
                         "inputs": len(model.inputs), "variant": desc, "native": case not in NOT_NATIVE}
                if n_outputs > 1:
                    entry["outputs"] = n_outputs
                if case in KNOWN_FAILURES:
                    entry["known_failure"] = KNOWN_FAILURES[case]
                cases.append(entry)
                print(case, desc)
    if not only:
        write_invalid()
        with open(os.path.join(HERE, "cases.json"), "w") as f:
            json.dump({"inputs_per_case": INPUTS, "cases": cases,
                       "dropped": [{"case": c, "variant": d, "why": w} for c, d, w in dropped]}, f, indent=1)
            f.write("\n")
    print(len(cases), "cases,", len(dropped), "dropped")


if __name__ == "__main__":
    main()
