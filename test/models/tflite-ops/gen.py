"""Single-operator .tflite models for every operator and type umac's .tflite reader legalizes
(SUPPORTED in frontend/src/tflite/ops/mod.rs, except UNIDIRECTIONAL_SEQUENCE_LSTM, which
test/models/lstm covers), with TensorFlow Lite Micro's outputs as the reference.

The models are written directly as flatbuffers with the TFLite schema's Python object API (the
`schema_py_generated` module the tflite_micro package ships), no TensorFlow. Weights, biases,
quantization parameters and inputs are random with fixed seeds: running this again writes the
same bytes. See README.md for the layout and cases.json for what each case exercises.

Run from the repository root with the venv holding tflite-micro, numpy and flatbuffers:
    .venv-models/bin/python test/models/tflite-ops/gen.py
"""
import json
import os
import shutil
import sys
import zlib

import flatbuffers
import numpy as np
import tflite_micro
from tflite_micro.python.tflite_micro import runtime

sys.path.insert(0, os.path.join(os.path.dirname(tflite_micro.__file__), "tensorflow", "lite", "micro", "python"))
import schema_py_generated as s  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = 3  # inferences per case

F32, I32, I64, I16, I8 = s.TensorType.FLOAT32, s.TensorType.INT32, s.TensorType.INT64, s.TensorType.INT16, s.TensorType.INT8
BOOL = s.TensorType.BOOL
NP = {F32: np.float32, I32: np.int32, I64: np.int64, I16: np.int16, I8: np.int8, BOOL: np.bool_}
TYPE = {"int8": I8, "int16": I16, "float32": F32, "int32": I32, "int64": I64, "bool": BOOL}
ACT = {"NONE": 0, "RELU": 1, "RELU6": 3}
SAME, VALID = s.Padding.SAME, s.Padding.VALID
PAD_NAME = {SAME: "SAME", VALID: "VALID"}
OPTIONS = s.BuiltinOptions

# Cases the native reader does not take (umac falls back to tosa-converter-for-tflite): they are
# still compared with TFLite Micro. Found by check.py; see README.md.
NOT_NATIVE = {
    # float32 to int16 at a scale that is not a power of two: "reproduces ... for int8 and for
    # power-of-two scales"
    "quantize_float32_2",
}
# Cases whose umac outputs currently differ from TFLite Micro's: case -> short reason. The test
# requires that they still differ, so that a fix is noticed (and the entry removed).
KNOWN_FAILURES = {
    "quantize_float32_2": "the converter multiplies by 1/scale and rounds half to even: one step off on rounding "
                          "edges (umac says so when it falls back)",
}


class Model:
    """One subgraph under construction."""

    def __init__(self):
        self.buffers = [s.BufferT()]
        self.tensors = []
        self.codes = []
        self.ops = []
        self.inputs = []

    def tensor(self, shape, ty, data=None, scale=None, zp=None, qdim=0, name=None):
        t = s.TensorT()
        t.shape = list(shape)
        t.type = ty
        t.name = name or f"t{len(self.tensors)}"
        t.buffer = 0
        if data is not None:
            b = s.BufferT()
            b.data = list(np.ascontiguousarray(data, NP[ty]).reshape(-1).tobytes())
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        if scale is not None:
            q = s.QuantizationParametersT()
            q.scale = [float(x) for x in np.atleast_1d(scale)]
            q.zeroPoint = [int(x) for x in np.atleast_1d(zp if zp is not None else 0)]
            if len(q.zeroPoint) == 1 and len(q.scale) > 1:
                q.zeroPoint = q.zeroPoint * len(q.scale)
            q.quantizedDimension = qdim
            t.quantization = q
        self.tensors.append(t)
        return len(self.tensors) - 1

    def input(self, shape, ty, scale=None, zp=None):
        i = self.tensor(shape, ty, scale=scale, zp=zp, name=f"input{len(self.inputs)}")
        self.inputs.append(i)
        return i

    def op(self, code, inputs, output, options_type=0, options=None):
        """`output`: a tensor, or a list of them for an operator with several outputs."""
        if code not in self.codes:
            self.codes.append(code)
        outputs = output if isinstance(output, list) else [output]
        o = s.OperatorT()
        o.opcodeIndex = self.codes.index(code)
        o.inputs = list(inputs)
        o.outputs = outputs
        o.builtinOptionsType = options_type
        o.builtinOptions = options
        self.ops.append(o)
        for j, t in enumerate(outputs):
            self.tensors[t].name = "output" if len(outputs) == 1 else f"output{j}"

    def finish(self):
        m = s.ModelT()
        m.version = 3
        m.description = "umac test/models/tflite-ops"
        m.buffers = self.buffers
        codes = []
        for c in self.codes:
            oc = s.OperatorCodeT()
            oc.builtinCode = c
            oc.deprecatedBuiltinCode = min(c, 127)
            oc.version = 1
            codes.append(oc)
        m.operatorCodes = codes
        sg = s.SubGraphT()
        sg.tensors = self.tensors
        sg.inputs = self.inputs
        sg.outputs = list(self.ops[-1].outputs)
        sg.operators = self.ops
        sg.name = "main"
        m.subgraphs = [sg]
        b = flatbuffers.Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


def opts(cls, **kw):
    o = cls()
    for k, v in kw.items():
        assert hasattr(o, k), (cls, k)
        setattr(o, k, v)
    return o


# ---- quantization helpers -------------------------------------------------------------------

QSTD = {I8: 40.0, I16: 8000.0}  # the spread an output's quantized values should have
RSTD = {I8: 74.0, I16: 18900.0}  # std of a full-range uniform input


def zero_point(rng, ty):
    return int(rng.integers(-60, 61)) if ty == I8 else 0


def weights(rng, shape, ty_act, qdim, per_channel, scale):
    """Symmetric int8 weights (float32 for float models) and their scales."""
    if ty_act == F32:
        fan = int(np.prod(shape)) // shape[qdim]
        return rng.normal(0, 1 / np.sqrt(fan), shape).astype(np.float32), None
    w = rng.integers(-127, 128, shape).astype(np.int8)
    n = shape[qdim]
    scales = scale * rng.uniform(0.4, 2.5, n) if per_channel else np.array([scale])
    return w, scales


def bias(rng, n, ty_act, fan, in_scale=None, w_scales=None):
    if ty_act == F32:
        return rng.normal(0, 0.3, n).astype(np.float32), F32, None
    spread = RSTD[ty_act] * 73 * np.sqrt(fan) * 0.3
    b = np.round(rng.normal(0, spread, n))
    scales = in_scale * (w_scales if len(w_scales) > 1 else np.full(n, w_scales[0]))
    if ty_act == I8:
        return np.clip(b, -(2**31), 2**31 - 1).astype(np.int32), I32, scales
    return b.astype(np.int64), I64, scales


def act_scale(ty, scale):
    """An activation scale: int16 covers the real range of int8 with 128x finer steps."""
    return scale / 128 if ty == I16 else scale


def out_quant(rng, ty, natural, act):
    """An output's (scale, zero point): a RELU6 result covers [0, 6] as converters quantize it."""
    if ty == F32:
        return None, None
    if act == "RELU6":
        return (6.2 / 255, -125) if ty == I8 else (6.2 / 32767, 0)
    return natural, zero_point(rng, ty)


def conv_out_scale(in_scale, w_scales, fan, ty, factor):
    return float(in_scale * np.mean(w_scales) * RSTD[ty] * 73 * np.sqrt(fan) / QSTD[ty] * factor)


# ---- operators ------------------------------------------------------------------------------
# Each builder takes (rng, type name, variant spec) and returns (Model, description).


def act_opt(act):
    return ACT[act]


def conv_like(kind):
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        n, h, w, c = v["in"]
        kh, kw = v["k"]
        sh, sw = v.get("stride", (1, 1))
        dh, dw = v.get("dil", (1, 1))
        pad = v.get("pad", SAME)
        act = v.get("act", "NONE")
        pc = v.get("per_channel", True)
        in_scale = act_scale(ty, v.get("scale", 0.05))
        in_zp = zero_point(rng, ty)
        x = m.input(v["in"], ty, None if ty == F32 else in_scale, in_zp)
        if kind == "conv":
            oc = v["out"]
            wshape, qdim, fan = (oc, kh, kw, c), 0, kh * kw * c
        else:
            mult = v.get("mult", 1)
            oc = c * mult
            wshape, qdim, fan = (1, kh, kw, oc), 3, kh * kw
        wt, wsc = weights(rng, wshape, ty, qdim, pc, v.get("wscale", 0.01))
        wi = m.tensor(wshape, F32 if ty == F32 else I8, wt, wsc, 0, qdim, name="filter")
        bdata, bty, bsc = bias(rng, oc, ty, fan, in_scale, wsc)
        bi = m.tensor([oc], bty, bdata, bsc, 0, 0, name="bias") if v.get("bias", True) else -1
        ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
        if pad == SAME:
            oh, ow = -(-h // sh), -(-w // sw)
        else:
            oh, ow = (h - ekh) // sh + 1, (w - ekw) // sw + 1
        if ty == F32:
            y = m.tensor([n, oh, ow, oc], F32)
        else:
            sc, zp = out_quant(rng, ty, conv_out_scale(in_scale, wsc, fan, ty, v.get("ofac", 1.0)), act)
            y = m.tensor([n, oh, ow, oc], ty, scale=sc, zp=zp)
        if kind == "conv":
            o = opts(s.Conv2DOptionsT, padding=pad, strideW=sw, strideH=sh, fusedActivationFunction=act_opt(act),
                     dilationWFactor=dw, dilationHFactor=dh)
            m.op(s.BuiltinOperator.CONV_2D, [x, wi, bi], y, OPTIONS.Conv2DOptions, o)
        else:
            o = opts(s.DepthwiseConv2DOptionsT, padding=pad, strideW=sw, strideH=sh, depthMultiplier=v.get("mult", 1),
                     fusedActivationFunction=act_opt(act), dilationWFactor=dw, dilationHFactor=dh)
            m.op(s.BuiltinOperator.DEPTHWISE_CONV_2D, [x, wi, bi], y, OPTIONS.DepthwiseConv2DOptions, o)
        desc = (f"{v['in']} kernel {kh}x{kw} stride {sh}x{sw} dilation {dh}x{dw} {PAD_NAME[pad]}, "
                + (f"{oc} filters" if kind == "conv" else f"depth multiplier {v.get('mult', 1)}")
                + ("" if ty == F32 else f", {'per-channel' if pc else 'per-tensor'} weights, input scale {in_scale}")
                + f", {act}" + ("" if v.get("bias", True) else ", no bias"))
        return m, desc
    return build


def fully_connected(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    batch, k = v["in"]
    oc = v["out"]
    in_scale = act_scale(ty, v.get("scale", 0.05))
    pc = v.get("per_channel", False)
    act = v.get("act", "NONE")
    x = m.input([batch, k], ty, None if ty == F32 else in_scale, zero_point(rng, ty))
    wt, wsc = weights(rng, (oc, k), ty, 0, pc, v.get("wscale", 0.01))
    wi = m.tensor((oc, k), F32 if ty == F32 else I8, wt, wsc, 0, 0, name="weights")
    bdata, bty, bsc = bias(rng, oc, ty, k, in_scale, wsc)
    bi = m.tensor([oc], bty, bdata, bsc, 0, 0, name="bias") if v.get("bias", True) else -1
    if ty == F32:
        y = m.tensor([batch, oc], F32)
    else:
        sc, zp = out_quant(rng, ty, conv_out_scale(in_scale, wsc, k, ty, v.get("ofac", 1.0)), act)
        y = m.tensor([batch, oc], ty, scale=sc, zp=zp)
    o = opts(s.FullyConnectedOptionsT, fusedActivationFunction=act_opt(act))
    m.op(s.BuiltinOperator.FULLY_CONNECTED, [x, wi, bi], y, OPTIONS.FullyConnectedOptions, o)
    desc = (f"[{batch}, {k}] x {oc} outputs"
            + ("" if ty == F32 else f", {'per-channel' if pc else 'per-tensor'} weights, input scale {in_scale}")
            + f", {act}" + ("" if v.get("bias", True) else ", no bias"))
    return m, desc


def transpose_conv(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    n, h, w, c = v["in"]
    kh, kw = v["k"]
    sh, sw = v.get("stride", (1, 1))
    pad = v.get("pad", SAME)
    oc = v["out"]
    pc = v.get("per_channel", True)
    in_scale = act_scale(ty, v.get("scale", 0.05))
    act = v.get("act", "NONE")
    if pad == SAME:
        oh, ow = h * sh, w * sw
    else:
        oh, ow = (h - 1) * sh + kh, (w - 1) * sw + kw
    shape = m.tensor([4], I32, np.array([n, oh, ow, oc]), name="output_shape")
    wshape = (oc, kh, kw, c)
    wt, wsc = weights(rng, wshape, ty, 0, pc, v.get("wscale", 0.01))
    wi = m.tensor(wshape, F32 if ty == F32 else I8, wt, wsc, 0, 0, name="filter")
    x = m.input(v["in"], ty, None if ty == F32 else in_scale, zero_point(rng, ty))
    # each output sums about kh*kw*c/(sh*sw) products
    fan = max(1, kh * kw * c // (sh * sw))
    bdata, bty, bsc = bias(rng, oc, ty, fan, in_scale, wsc)
    bi = m.tensor([oc], bty, bdata, bsc, 0, 0, name="bias") if v.get("bias", True) else -1
    if ty == F32:
        y = m.tensor([n, oh, ow, oc], F32)
    else:
        sc, zp = out_quant(rng, ty, conv_out_scale(in_scale, wsc, fan, ty, 1.0), act)
        y = m.tensor([n, oh, ow, oc], ty, scale=sc, zp=zp)
    o = opts(s.TransposeConvOptionsT, padding=pad, strideW=sw, strideH=sh, fusedActivationFunction=act_opt(act))
    m.op(s.BuiltinOperator.TRANSPOSE_CONV, [shape, wi, x, bi], y, OPTIONS.TransposeConvOptions, o)
    desc = (f"{v['in']} kernel {kh}x{kw} stride {sh}x{sw} {PAD_NAME[pad]}, {oc} filters, "
            f"{'per-channel' if pc else 'per-tensor'} weights, input scale {in_scale}, {act}"
            + ("" if v.get("bias", True) else ", no bias"))
    return m, desc


def pool(code):
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        n, h, w, c = v["in"]
        fh, fw = v["k"]
        sh, sw = v["stride"]
        pad = v["pad"]
        act = v.get("act", "NONE")
        scale = act_scale(ty, v.get("scale", 0.05))
        # below the middle, so that a fused RELU clamps some values, RELU6 others
        zp = int(rng.integers(-60, -9)) if ty == I8 else 0
        q = (None, None) if ty == F32 else (scale, zp)
        x = m.input(v["in"], ty, *q)
        if pad == SAME:
            oh, ow = -(-h // sh), -(-w // sw)
        else:
            oh, ow = (h - fh) // sh + 1, (w - fw) // sw + 1
        y = m.tensor([n, oh, ow, c], ty, scale=q[0], zp=q[1])
        o = opts(s.Pool2DOptionsT, padding=pad, strideW=sw, strideH=sh, filterWidth=fw, filterHeight=fh,
                 fusedActivationFunction=act_opt(act))
        m.op(code, [x], y, OPTIONS.Pool2DOptions, o)
        desc = (f"{v['in']} filter {fh}x{fw} stride {sh}x{sw} {PAD_NAME[pad]}, {act}"
                + ("" if ty == F32 else f", scale {scale}"))
        return m, desc
    return build


def binary(code, cls, otype):
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        sa, sb = [act_scale(ty, x) for x in v["scales"]] if ty != F32 else (None, None)
        a = m.input(v["a"], ty, sa, zero_point(rng, ty))
        bq = zero_point(rng, ty)
        if v.get("const"):
            if ty == F32:
                data = rng.normal(0, 1, v["b"]).astype(np.float32)
            else:
                info = np.iinfo(NP[ty])
                data = rng.integers(info.min, info.max + 1, v["b"])
            b = m.tensor(v["b"], ty, data, sb, bq, name="constant")
        else:
            b = m.input(v["b"], ty, sb, bq)
        oshape = list(np.broadcast_shapes(tuple(v["a"]), tuple(v["b"])))
        if ty == F32:
            y = m.tensor(oshape, F32)
        else:
            if code == s.BuiltinOperator.MUL:
                so = sa * sb * RSTD[ty] ** 2 / QSTD[ty] / 2
            else:
                so = max(sa, sb) * RSTD[ty] * 1.4 / QSTD[ty] / 2
            so, zo = out_quant(rng, ty, so * v.get("ofac", 1.0), v.get("act", "NONE"))
            y = m.tensor(oshape, ty, scale=so, zp=zo)
        act = v.get("act", "NONE")
        kw = {"fusedActivationFunction": act_opt(act)}
        if cls is not s.MulOptionsT:
            kw["potScaleInt16"] = False
        m.op(code, [a, b], y, otype, opts(cls, **kw))
        desc = (f"{v['a']} and {v['b']}{' (constant)' if v.get('const') else ''}, {act}"
                + ("" if ty == F32 else f", scales {sa} and {sb}"))
        return m, desc
    return build


def squared_difference_q(rng, tname, v):
    """Quantized SQUARED_DIFFERENCE (int16: zero points 0)."""
    ty = TYPE[tname]
    m = Model()
    sa, sb = [act_scale(ty, x) for x in v["scales"]]
    a = m.input(v["a"], ty, sa, zero_point(rng, ty))
    if v.get("const"):
        b = m.tensor(v["b"], ty, random_input(rng, v["b"], NP[ty]), sb, zero_point(rng, ty), name="constant")
    else:
        b = m.input(v["b"], ty, sb, zero_point(rng, ty))
    so = (max(sa, sb) * RSTD[ty]) ** 2 / QSTD[ty] / 2
    y = m.tensor(list(np.broadcast_shapes(tuple(v["a"]), tuple(v["b"]))), ty, scale=so, zp=zero_point(rng, ty))
    m.op(BIN.SQUARED_DIFFERENCE, [a, b], y)
    return m, f"{v['a']} and {v['b']}{' (constant)' if v.get('const') else ''}, scales {sa} and {sb} to {so:.6g}"


def prelu(rng, tname, v):
    """PRELU: alpha int8 for int8 and int16 inputs (TFLite Micro's kernel), a constant or not."""
    ty = TYPE[tname]
    m = Model()
    si = act_scale(ty, v["scale"]) if ty != F32 else None
    x = m.input(v["in"], ty, si, zero_point(rng, ty) if ty != F32 else None)
    aty = F32 if ty == F32 else I8
    qa = (v["alpha_scale"], zero_point(rng, I8)) if ty != F32 else (None, None)
    if v.get("const"):
        data = rng.uniform(-0.5, 1.5, v["alpha"]).astype(np.float32) if ty == F32 else \
            rng.integers(-128, 128, v["alpha"]).astype(np.int8)
        alpha = m.tensor(v["alpha"], aty, data, *qa, name="alpha")
    else:
        alpha = m.input(v["alpha"], aty, *qa)
    shape = list(np.broadcast_shapes(tuple(v["in"]), tuple(v["alpha"])))
    so = act_scale(ty, v["scale"] * v.get("ofac", 1.0)) if ty != F32 else None
    y = m.tensor(shape, ty, scale=so, zp=zero_point(rng, ty) if ty != F32 else None)
    m.op(BIN.PRELU, [x, alpha], y)
    return m, (f"{v['in']}, alpha {v['alpha']}{' (constant)' if v.get('const') else ''}"
               + ("" if ty == F32 else f", scales {si:.6g} to {so:.6g}, alpha scale {qa[0]}"))


def leaky_relu(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    si, so = [act_scale(ty, x) for x in v["scales"]] if ty != F32 else (None, None)
    x = m.input(v["in"], ty, si, zero_point(rng, ty))
    y = m.tensor(v["in"], ty, scale=so, zp=zero_point(rng, ty) if ty != F32 else None)
    m.op(s.BuiltinOperator.LEAKY_RELU, [x], y, OPTIONS.LeakyReluOptions, opts(s.LeakyReluOptionsT, alpha=v["alpha"]))
    return m, f"{v['in']} alpha {v['alpha']}" + ("" if ty == F32 else f", scales {si} to {so}")


def pad_op(v2):
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        quant = ty in (I8, I16)
        scale = v.get("scale", 0.05)
        q = (scale, zero_point(rng, ty)) if quant else (None, None)
        x = m.input(v["in"], ty, *q)
        p = np.array(v["pads"], np.int32)
        pi = m.tensor(list(p.shape), I32, p, name="paddings")
        ins = [x, pi]
        oshape = [d + a + b for d, (a, b) in zip(v["in"], v["pads"])]
        if v2:
            if ty == F32:
                cv = np.array([v["value"]], np.float32)
            else:
                cv = np.array([v["value"]], NP[ty])
            ins.append(m.tensor([1] if v.get("value_shape1") else [], ty, cv, *q, name="constant_value"))
        y = m.tensor(oshape, ty, scale=q[0], zp=q[1])
        if v2:
            m.op(s.BuiltinOperator.PADV2, ins, y, OPTIONS.PadV2Options, s.PadV2OptionsT())
        else:
            m.op(s.BuiltinOperator.PAD, ins, y, OPTIONS.PadOptions, s.PadOptionsT())
        desc = f"{v['in']} paddings {v['pads']}" + (f", constant value {v['value']}" if v2 else "")
        if quant:
            desc += f", zero point {q[1]}"
        return m, desc
    return build


def quantize(rng, tname, v):
    """QUANTIZE between integer types, or from float32: then half of each input lies on a
    rounding boundary of x / scale ((k + 1/2) · scale in f32), the rest normal over the range."""
    ti, to = TYPE[tname], TYPE[v["to"]]
    m = Model()
    if ti == F32:
        x = m.input(v["in"], F32)
    else:
        x = m.input(v["in"], ti, v["scales"][0], zero_point(rng, ti))
    zo = zero_point(rng, to)
    y = m.tensor(v["in"], to, scale=v["scales"][1], zp=zo)
    m.op(s.BuiltinOperator.QUANTIZE, [x], y)
    if ti == F32:
        so, n = np.float32(v["scales"][1]), int(np.prod(v["in"]))
        span = 140 if to == I8 else 33000

        def make_input(r):
            k = r.integers(-span, span, n)
            edges = ((k + 0.5).astype(np.float32) * so).astype(np.float32)
            spread = (r.standard_normal(n) * span / 3 * so).astype(np.float32)
            return [np.where(r.random(n) < 0.5, edges, spread).astype(np.float32).reshape(v["in"])]
        m.make_input = make_input
        return m, f"{v['in']} float32 to {v['to']}, scale {v['scales'][1]} zero point {zo}, half on rounding edges"
    return m, f"{v['in']} {tname} to {v['to']}, scales {v['scales'][0]} to {v['scales'][1]}"


def dequantize(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    x = m.input(v["in"], ty, v["scale"], zero_point(rng, ty))
    y = m.tensor(v["in"], F32)
    m.op(s.BuiltinOperator.DEQUANTIZE, [x], y)
    return m, f"{v['in']} {tname} to float32, scale {v['scale']}"


def reshape(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    quant = ty in (I8, I16)
    q = (0.05, zero_point(rng, ty)) if quant else (None, None)
    x = m.input(v["in"], ty, *q)
    ins = [x]
    if v.get("shape_tensor", True):
        ins.append(m.tensor([len(v["to"])], I32, np.array(v["to"]), name="shape"))
    out = list(v["to"])
    if -1 in out:
        out[out.index(-1)] = int(np.prod(v["in"]) // -np.prod(out))
    y = m.tensor(out, ty, scale=q[0], zp=q[1])
    m.op(s.BuiltinOperator.RESHAPE, ins, y, OPTIONS.ReshapeOptions, opts(s.ReshapeOptionsT, newShape=list(v["to"])))
    return m, f"{v['in']} to {v['to']}" + (" (shape tensor)" if v.get("shape_tensor", True) else " (new_shape option only)")


def strided_slice(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    quant = ty in (I8, I16)
    q = (0.05, zero_point(rng, ty)) if quant else (None, None)
    x = m.input(v["in"], ty, *q)
    r = len(v["in"])
    b = m.tensor([r], I32, np.array(v["begin"]), name="begin")
    e = m.tensor([r], I32, np.array(v["end"]), name="end")
    st = m.tensor([r], I32, np.array(v["strides"]), name="strides")
    bm, em, sm = v.get("begin_mask", 0), v.get("end_mask", 0), v.get("shrink", 0)
    # numpy's basic slicing has TensorFlow's semantics (negative indices, clamping, masks as
    # open ends, a shrunk axis as an index)
    index = tuple(v["begin"][i] if sm >> i & 1 else
                  slice(None if bm >> i & 1 else v["begin"][i], None if em >> i & 1 else v["end"][i], v["strides"][i])
                  for i in range(r))
    y = m.tensor(list(np.empty(v["in"])[index].shape), ty, scale=q[0], zp=q[1])
    o = opts(s.StridedSliceOptionsT, beginMask=bm, endMask=em, shrinkAxisMask=sm)
    m.op(s.BuiltinOperator.STRIDED_SLICE, [x, b, e, st], y, OPTIONS.StridedSliceOptions, o)
    return m, (f"{v['in']} begin {v['begin']} end {v['end']} strides {v['strides']}"
               + (f" begin_mask {bm}" if bm else "") + (f" end_mask {em}" if em else "")
               + (f" shrink_axis_mask {sm}" if sm else ""))


def softmax(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    if ty == F32:
        x = m.input(v["in"], F32)
        y = m.tensor(v["in"], F32)
    else:
        x = m.input(v["in"], ty, act_scale(ty, v["scale"]), zero_point(rng, ty))
        y = m.tensor(v["in"], ty, scale=1 / 256 if ty == I8 else 1 / 32768, zp=-128 if ty == I8 else 0)
    m.op(s.BuiltinOperator.SOFTMAX, [x], y, OPTIONS.SoftmaxOptions, opts(s.SoftmaxOptionsT, beta=v["beta"]))
    return m, f"{v['in']} beta {v['beta']}" + ("" if ty == F32 else f", input scale {v['scale']}")


POSITIVE = {"LOG", "SQRT", "RSQRT"}  # float inputs made positive: |x| + 0.01


def unary(code, name):
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        si, so = [act_scale(ty, x) for x in v["scales"]] if ty != F32 else (None, None)
        x = m.input(v["in"], ty, si, zero_point(rng, ty))
        y = m.tensor(v["in"], ty, scale=so, zp=zero_point(rng, ty) if ty != F32 else None)
        m.op(code, [x], y)
        m.input_scale = v.get("spread", 1.5)
        m.positive = name in POSITIVE
        return m, (f"{v['in']}" + (f", inputs x{v.get('spread', 1.5)}" if ty == F32 else f", scales {si} to {so}")
                   + (", positive inputs" if m.positive and ty == F32 else ""))
    return build


# The kernels' own output quantization for int8 LOGISTIC and TANH (TFLite Micro requires the
# zero point -128 for LOGISTIC and ignores TANH's; int16 requires 2^-15).
ACTIVATION_OUT = {"LOGISTIC": (1 / 256, -128), "TANH": (1 / 128, 0)}


def quantized_activation(code, name):
    """LOGISTIC, TANH, HARD_SWISH, ELU on int8 (any input quantization) and int16 (LOGISTIC and
    TANH: zero points 0, input scale a power of two or not)."""
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        if ty == I8:
            # RSQRT: TFLite Micro stops at a value below the zero point, so it is the lowest.
            si, zi = v["scale"], (-128 if name == "RSQRT" else zero_point(rng, ty))
            so, zo = ACTIVATION_OUT.get(name, (v["scale"] * v.get("out", 1.0), zero_point(rng, ty)))
        else:
            si, zi, so, zo = v["scale16"], 0, 2.0 ** -15, 0
        x = m.input(v["in"], ty, si, zi)
        y = m.tensor(v["in"], ty, scale=so, zp=zo)
        m.op(code, [x], y)
        return m, f"{v['in']}, input scale {si:.6g} zero point {zi}, output scale {so:.6g} zero point {zo}"
    return build


def min_max(code):
    """MAXIMUM, MINIMUM: TFLite Micro does not rescale, so every operand is quantized alike."""
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        q = (act_scale(ty, v["scales"][0]), zero_point(rng, ty)) if ty in (I8, I16) else (None, None)
        a = m.input(v["a"], ty, *q)
        if v.get("const"):
            b = m.tensor(v["b"], ty, random_input(rng, v["b"], NP[ty]), *q, name="constant")
        else:
            b = m.input(v["b"], ty, *q)
        y = m.tensor(list(np.broadcast_shapes(tuple(v["a"]), tuple(v["b"]))), ty, scale=q[0], zp=q[1])
        m.op(code, [a, b], y)
        return m, (f"{v['a']} and {v['b']}{' (constant)' if v.get('const') else ''}"
                   + ("" if q[0] is None else f", scale {q[0]:.6g}"))
    return build


def float_binary(code, cls, otype):
    def build(rng, tname, v):
        m = Model()
        a = m.input(v["a"], F32)
        if v.get("const"):
            b = m.tensor(v["b"], F32, random_input(rng, v["b"], np.float32), name="constant")
        else:
            b = m.input(v["b"], F32)
        y = m.tensor(list(np.broadcast_shapes(tuple(v["a"]), tuple(v["b"]))), F32)
        act = v.get("act", "NONE") if cls else "NONE"
        m.op(code, [a, b], y, otype, opts(cls, fusedActivationFunction=ACT[act]) if cls else None)
        return m, f"{v['a']} and {v['b']}{' (constant)' if v.get('const') else ''}" + (f", {act}" if cls else "")
    return build


# ---- data movement --------------------------------------------------------------------------
# TFLite Micro copies raw elements: every data operand and result shares one quantization (int16:
# zero point 0). Shape operands (axes, permutations, begin and size, indices, dims) are constants.


def moved(rng, ty, v):
    """The (scale, zero point) of a data-movement operator's tensors (None for int32, float32)."""
    return (act_scale(ty, v.get("scale", 0.05)), zero_point(rng, ty)) if ty in (I8, I16) else (None, None)


def ints(m, values, name, scalar=False):
    a = np.array(values, np.int32)
    return m.tensor([] if scalar else list(a.shape), I32, a, name=name)


def one_to_one(code, otype=0, cls=None):
    """The operators of one data input, then constant int32 operands, and one output, whose shape
    the variant's `out` gives: `consts` lists the operands (name, values[, True for a scalar]),
    `opt` the options (`table`: other options than the operator's)."""
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        q = moved(rng, ty, v)
        x = m.input(v["in"], ty, *q)
        rest = [ints(m, c[1], c[0], *c[2:]) for c in v.get("consts", [])]
        y = m.tensor(v["out"], ty, scale=q[0], zp=q[1])
        ot, oc = v.get("table", (otype, cls))
        m.op(code, [x] + rest, y, ot, opts(oc, **v.get("opt", {})) if oc else None)
        what = "".join(f", {c[0]} {c[1]}" for c in v.get("consts", []))
        what += "".join(f", {k} {o}" for k, o in v.get("opt", {}).items())
        return m, f"{v['in']}{what} to {v['out']}" + (
            "" if q[0] is None else f", scale {q[0]:.6g} zero point {q[1]}") + (
            f", with a {oc.__name__[:-1]} table" if "table" in v else "")
    return build


def concatenation(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    q = moved(rng, ty, v)
    ins = []
    for k, shape in enumerate(v["ins"]):
        if k in v.get("const", ()):
            ins.append(m.tensor(shape, ty, random_input(rng, shape, NP[ty]), *q, name=f"constant{k}"))
        else:
            ins.append(m.input(shape, ty, *q))
    rank = len(v["ins"][0])
    axis = v["axis"] % rank
    out = list(v["ins"][0])
    out[axis] = sum(sh[axis] for sh in v["ins"])
    y = m.tensor(out, ty, scale=q[0], zp=q[1])
    m.op(s.BuiltinOperator.CONCATENATION, ins, y, OPTIONS.ConcatenationOptions,
         opts(s.ConcatenationOptionsT, axis=v["axis"], fusedActivationFunction=0))
    consts = "".join(f", input {k} constant" for k in v.get("const", ()))
    return m, f"{' + '.join(str(sh) for sh in v['ins'])} along axis {v['axis']}{consts}" + (
        "" if q[0] is None else f", one quantization (scale {q[0]:.6g} zero point {q[1]})")


def pack(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    q = moved(rng, ty, v)
    ins = [m.input(v["in"], ty, *q) for _ in range(v["n"])]
    out = list(v["in"])
    out.insert(v["axis"] % (len(out) + 1), v["n"])
    y = m.tensor(out, ty, scale=q[0], zp=q[1])
    m.op(s.BuiltinOperator.PACK, ins, y, OPTIONS.PackOptions, opts(s.PackOptionsT, valuesCount=v["n"], axis=v["axis"]))
    return m, f"{v['n']} x {v['in']} along axis {v['axis']} to {out}" + (
        "" if q[0] is None else f", scale {q[0]:.6g} zero point {q[1]}")


def several_outputs(code):
    """UNPACK (`axis`), SPLIT (`n` parts along the constant `axis`) and SPLIT_V (constant `sizes`
    along the constant `axis`): one output per part."""
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        q = moved(rng, ty, v)
        shape = list(v["in"])
        rank = len(shape)
        axis = v["axis"] % rank
        if code == s.BuiltinOperator.UNPACK:
            x = m.input(shape, ty, *q)
            ins, n = [x], shape[axis]
            outs = [shape[:axis] + shape[axis + 1:]] * n
            o, ot = opts(s.UnpackOptionsT, num=n, axis=v["axis"]), OPTIONS.UnpackOptions
            what = f"{shape} along axis {v['axis']} into {n}"
        elif code == s.BuiltinOperator.SPLIT:
            a = ints(m, v["axis"], "axis", True)
            x = m.input(shape, ty, *q)
            ins, n = [a, x], v["n"]
            outs = [shape[:axis] + [shape[axis] // n] + shape[axis + 1:]] * n
            o, ot = opts(s.SplitOptionsT, numSplits=n), OPTIONS.SplitOptions
            what = f"{shape} along axis {v['axis']} into {n}"
        else:
            x = m.input(shape, ty, *q)
            sizes = list(v["sizes"])
            ins = [x, ints(m, sizes, "size_splits"), ints(m, v["axis"], "axis", True)]
            if -1 in sizes:
                sizes[sizes.index(-1)] = shape[axis] - (sum(sizes) + 1)
            n = len(sizes)
            outs = [shape[:axis] + [k] + shape[axis + 1:] for k in sizes]
            o, ot = opts(s.SplitVOptionsT, numSplits=n), OPTIONS.SplitVOptions
            what = f"{shape} along axis {v['axis']} into sizes {v['sizes']}"
        ys = [m.tensor(sh, ty, scale=q[0], zp=q[1]) for sh in outs]
        m.op(code, ins, ys, ot, o)
        return m, what + f" ({n} outputs)" + ("" if q[0] is None else f", scale {q[0]:.6g} zero point {q[1]}")
    return build


def fill(rng, tname, v):
    """FILL: the constant dims, the (scalar) value an input."""
    ty = TYPE[tname]
    m = Model()
    q = moved(rng, ty, v)
    d = ints(m, v["dims"], "dims")
    x = m.input([], ty, *q)
    y = m.tensor(v["dims"], ty, scale=q[0], zp=q[1])
    m.op(s.BuiltinOperator.FILL, [d, x], y, OPTIONS.FillOptions, s.FillOptionsT())
    return m, f"dims {v['dims']}, the scalar value an input" + ("" if q[0] is None else f", scale {q[0]:.6g}")


def shape_op(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    x = m.input(v["in"], ty, *moved(rng, ty, v))
    y = m.tensor([len(v["in"])], I32)
    m.op(s.BuiltinOperator.SHAPE, [x], y, OPTIONS.ShapeOptions, opts(s.ShapeOptionsT, outType=I32))
    return m, f"{v['in']} to its int32 shape"


def zeros_like(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    q = moved(rng, ty, v)
    x = m.input(v["in"], ty, *q)
    y = m.tensor(v["in"], ty, scale=q[0], zp=q[1])
    m.op(s.BuiltinOperator.ZEROS_LIKE, [x], y, OPTIONS.ZerosLikeOptions, s.ZerosLikeOptionsT())
    return m, f"{v['in']}" + ("" if q[0] is None else f", zero point {q[1]} (TFLite Micro writes raw 0)")


# ---- reductions, comparisons and logic --------------------------------------------------------


def reducer(code):
    """MEAN, SUM, REDUCE_MAX, REDUCE_MIN over constant axes. MEAN and SUM rescale to the output's
    quantization; TFLite Micro requires REDUCE_MAX and REDUCE_MIN to keep the input's."""
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        si, so = (act_scale(ty, v["scales"][0]), act_scale(ty, v["scales"][1])) if ty != F32 else (None, None)
        if code in (BIN.REDUCE_MAX, BIN.REDUCE_MIN):
            so = si
        zi = int(rng.integers(-20, 21)) if ty == I8 else 0
        x = m.input(v["in"], ty, si, zi)
        axes = m.tensor([len(v["axes"])], I32, np.array(v["axes"]), name="axes")
        keep = v["keep"]
        reduced = [i % len(v["in"]) for i in v["axes"]]
        oshape = [1 if i in reduced else d for i, d in enumerate(v["in"])]
        if not keep:
            oshape = [d for i, d in enumerate(v["in"]) if i not in reduced]
        if ty != I8 or si == so:
            zo = zi if ty == I8 else 0
        elif code == BIN.SUM:
            zo = int(rng.integers(-20, 21))
        else:  # centred: the mean of full-range inputs is near the middle of the range
            zo = int(np.clip(round(zi * si / so) + rng.integers(-8, 9), -128, 127))
        y = m.tensor(oshape, ty, scale=so, zp=zo if ty != F32 else None)
        m.op(code, [x, axes], y, OPTIONS.ReducerOptions, opts(s.ReducerOptionsT, keepDims=keep))
        return m, (f"{v['in']} over axes {v['axes']}, keep_dims {keep}"
                   + ("" if ty == F32 else (", same quantization in and out" if si == so else
                                            f", scales {si:.6g} to {so:.6g}")))
    return build


def arg_min_max(code, cls, otype):
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        x = m.input(v["in"], ty, *((v["scale"], zero_point(rng, ty)) if ty == I8 else (None, None)))
        axis = m.tensor([1], I32, np.array([v["axis"]]), name="axis")
        oshape = [d for i, d in enumerate(v["in"]) if i != v["axis"] % len(v["in"])]
        y = m.tensor(oshape, I32)
        m.op(code, [x, axis], y, otype, opts(cls, outputType=I32))
        m.whole = True  # ties: the first index wins
        return m, f"{v['in']} along axis {v['axis']}" + (", integer-valued inputs (ties)" if ty == F32 else "")
    return build


def comparison(code):
    """int8 operands of different quantizations compare by value (TFLite Micro rescales both)."""
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        qa = (v["scales"][0], zero_point(rng, ty)) if ty == I8 else (None, None)
        qb = (v["scales"][1], zero_point(rng, ty)) if ty == I8 else (None, None)
        a = m.input(v["a"], ty, *qa)
        if v.get("const"):
            b = m.tensor(v["b"], ty, random_input(rng, v["b"], NP[ty], whole=True), *qb, name="constant")
        else:
            b = m.input(v["b"], ty, *qb)
        y = m.tensor(list(np.broadcast_shapes(tuple(v["a"]), tuple(v["b"]))), BOOL)
        m.op(code, [a, b], y)
        m.whole = True  # equal values occur
        return m, (f"{v['a']} and {v['b']}{' (constant)' if v.get('const') else ''}"
                   + (f", scales {qa[0]} and {qb[0]}" if ty == I8 else ""))
    return build


def select_v2(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    q = (act_scale(ty, 0.05), zero_point(rng, ty)) if ty in (I8, I16) else (None, None)
    c = m.input(v["cond"], BOOL)
    a = m.input(v["a"], ty, *q)
    if v.get("const"):
        b = m.tensor(v["b"], ty, random_input(rng, v["b"], NP[ty]), *q, name="constant")
    else:
        b = m.input(v["b"], ty, *q)
    shape = list(np.broadcast_shapes(tuple(v["cond"]), tuple(v["a"]), tuple(v["b"])))
    y = m.tensor(shape, ty, scale=q[0], zp=q[1])
    m.op(BIN.SELECT_V2, [c, a, b], y, OPTIONS.SelectV2Options, s.SelectV2OptionsT())
    return m, f"condition {v['cond']}, {v['a']} and {v['b']}{' (constant)' if v.get('const') else ''}"


def logical(code):
    def build(rng, tname, v):
        m = Model()
        if code == BIN.LOGICAL_NOT:
            x = m.input(v["a"], BOOL)
            y = m.tensor(v["a"], BOOL)
            m.op(code, [x], y)
            return m, f"{v['a']}"
        a, b = m.input(v["a"], BOOL), m.input(v["b"], BOOL)
        y = m.tensor(list(np.broadcast_shapes(tuple(v["a"]), tuple(v["b"]))), BOOL)
        m.op(code, [a, b], y)
        return m, f"{v['a']} and {v['b']}"
    return build


def cast(rng, tname, v):
    """C++'s static_cast: floats to integers truncate (inputs kept in the target's range)."""
    ty, to = TYPE[tname], TYPE[v["to"]]
    m = Model()
    x = m.input(v["in"], ty)
    y = m.tensor(v["in"], to)
    m.op(BIN.CAST, [x], y, OPTIONS.CastOptions, opts(s.CastOptionsT, inDataType=ty, outDataType=to))
    m.input_scale = v.get("spread", 1.5)
    return m, f"{v['in']} to {v['to']}" + (f", inputs x{m.input_scale}" if ty == F32 else "")


def resize(code, cls, otype):
    """RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR: TFLite Micro interpolates raw values, so input
    and output share a quantization."""
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        q = (act_scale(ty, 0.05), zero_point(rng, ty)) if ty in (I8, I16) else (None, None)
        x = m.input(v["in"], ty, *q)
        size = m.tensor([2], I32, np.array(v["size"]), name="size")
        n, _, _, c = v["in"]
        y = m.tensor([n, *v["size"], c], ty, scale=q[0], zp=q[1])
        m.op(code, [x, size], y, otype, opts(cls, alignCorners=v.get("align", False),
                                               halfPixelCenters=v.get("half", False)))
        return m, (f"{v['in']} to {v['size']}" + (", align_corners" if v.get("align") else "")
                   + (", half_pixel_centers" if v.get("half") else ""))
    return build


def space_batch(code):
    """SPACE_TO_BATCH_ND (paddings) and BATCH_TO_SPACE_ND (crops): raw elements, one
    quantization."""
    def build(rng, tname, v):
        ty = TYPE[tname]
        m = Model()
        q = moved(rng, ty, v)
        if code == BIN.SPACE_TO_BATCH_ND and np.any(v["pads"]) and q[0] is not None:
            # TFLite Micro pads with a value it never sets (0 in a fresh arena, stale bytes
            # after other use); umac pads with the zero point, which is 0 here.
            q = (q[0], 0)
        x = m.input(v["in"], ty, *q)
        spatial = len(v["block"])
        block = m.tensor([spatial], I32, np.array(v["block"]), name="block_shape")
        pads = m.tensor([spatial, 2], I32, np.array(v["pads"]), name="paddings" if code == BIN.SPACE_TO_BATCH_ND else "crops")
        shape = list(v["in"])
        if code == BIN.SPACE_TO_BATCH_ND:
            for i, (b, (p0, p1)) in enumerate(zip(v["block"], v["pads"])):
                shape[1 + i] = (shape[1 + i] + p0 + p1) // b
            shape[0] *= int(np.prod(v["block"]))
            otype, o = OPTIONS.SpaceToBatchNDOptions, s.SpaceToBatchNDOptionsT()
        else:
            for i, (b, (p0, p1)) in enumerate(zip(v["block"], v["pads"])):
                shape[1 + i] = shape[1 + i] * b - p0 - p1
            shape[0] //= int(np.prod(v["block"]))
            otype, o = OPTIONS.BatchToSpaceNDOptions, s.BatchToSpaceNDOptionsT()
        y = m.tensor(shape, ty, scale=q[0], zp=q[1])
        m.op(code, [x, block, pads], y, otype, o)
        return m, f"{v['in']} block {v['block']} {'paddings' if code == BIN.SPACE_TO_BATCH_ND else 'crops'} {v['pads']}"
    return build


def mirror_pad(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    q = moved(rng, ty, v)
    x = m.input(v["in"], ty, *q)
    pads = m.tensor([len(v["in"]), 2], I32, np.array(v["pads"]), name="paddings")
    shape = [d + p0 + p1 for d, (p0, p1) in zip(v["in"], v["pads"])]
    y = m.tensor(shape, ty, scale=q[0], zp=q[1])
    m.op(BIN.MIRROR_PAD, [x, pads], y, OPTIONS.MirrorPadOptions,
         opts(s.MirrorPadOptionsT, mode=s.MirrorPadMode.SYMMETRIC if v["symmetric"] else s.MirrorPadMode.REFLECT))
    return m, f"{v['in']} {'SYMMETRIC' if v['symmetric'] else 'REFLECT'} {v['pads']}"


def batch_matmul(rng, tname, v):
    """BATCH_MATMUL: both operands of the data type (int16: zero points 0), broadcast batch
    dimensions, adj_x / adj_y, a constant right-hand side."""
    ty = TYPE[tname]
    m = Model()
    ql = (act_scale(ty, v["scales"][0]), zero_point(rng, ty)) if ty != F32 else (None, None)
    qr = (act_scale(ty, v["scales"][1]), zero_point(rng, ty)) if ty != F32 else (None, None)
    a = m.input(v["a"], ty, *ql)
    if v.get("const"):
        b = m.tensor(v["b"], ty, random_input(rng, v["b"], NP[ty]), *qr, name="constant")
    else:
        b = m.input(v["b"], ty, *qr)
    la, lb = list(v["a"]), list(v["b"])
    if v.get("adj_x"):
        la[-2], la[-1] = la[-1], la[-2]
    if v.get("adj_y"):
        lb[-2], lb[-1] = lb[-1], lb[-2]
    shape = list(np.broadcast_shapes(tuple(la[:-2]), tuple(lb[:-2]))) + [la[-2], lb[-1]]
    if ty == F32:
        y = m.tensor(shape, F32)
    else:
        so = ql[0] * qr[0] * RSTD[ty] ** 2 * np.sqrt(la[-1]) / QSTD[ty]
        y = m.tensor(shape, ty, scale=so, zp=zero_point(rng, ty))
    m.op(BIN.BATCH_MATMUL, [a, b], y, OPTIONS.BatchMatMulOptions,
         opts(s.BatchMatMulOptionsT, adjX=bool(v.get("adj_x")), adjY=bool(v.get("adj_y"))))
    return m, (f"{v['a']} x {v['b']}{' (constant)' if v.get('const') else ''}"
               + (" adj_x" if v.get("adj_x") else "") + (" adj_y" if v.get("adj_y") else ""))


def add_n(rng, tname, v):
    """ADD_N: int8 operands quantized alike (TFLite Micro requires it)."""
    ty = TYPE[tname]
    m = Model()
    q = (v["scale"], zero_point(rng, ty)) if ty == I8 else (None, None)
    xs = [m.input(v["in"], ty, *q) for _ in range(v["n"])]
    qo = (v["scale"] * np.sqrt(v["n"]) * 1.2, zero_point(rng, ty)) if ty == I8 else (None, None)
    y = m.tensor(v["in"], ty, scale=qo[0], zp=qo[1])
    m.op(BIN.ADD_N, xs, y, OPTIONS.AddNOptions, s.AddNOptionsT())
    return m, f"{v['n']} x {v['in']}" + (f", scale {q[0]} to {qo[0]:.6g}" if ty == I8 else "")


def float_last_axis(code):
    """LOG_SOFTMAX, L2_NORMALIZATION on float32 over the last dimension."""
    def build(rng, tname, v):
        m = Model()
        x = m.input(v["in"], F32)
        y = m.tensor(v["in"], F32)
        if code == BIN.LOG_SOFTMAX:
            m.op(code, [x], y, OPTIONS.LogSoftmaxOptions, s.LogSoftmaxOptionsT())
        else:
            m.op(code, [x], y, OPTIONS.L2NormOptions, opts(s.L2NormOptionsT, fusedActivationFunction=0))
        m.input_scale = v.get("spread", 1.5)
        return m, f"{v['in']}, inputs x{m.input_scale}"
    return build


def gather_nd(rng, tname, v):
    ty = TYPE[tname]
    m = Model()
    q = moved(rng, ty, v)
    x = m.input(v["in"], ty, *q)
    idx = np.array(v["indices"], np.int32)
    i = m.tensor(list(idx.shape), I32, idx, name="indices")
    shape = list(idx.shape[:-1]) + list(v["in"][idx.shape[-1]:])
    y = m.tensor(shape, ty, scale=q[0], zp=q[1])
    m.op(BIN.GATHER_ND, [x, i], y, OPTIONS.GatherNdOptions, s.GatherNdOptionsT())
    return m, f"{v['in']} at {idx.shape} indices"


def embedding_lookup(rng, tname, v):
    """EMBEDDING_LOOKUP: the ids are the model's input (in range), the table a constant."""
    ty, to = TYPE[tname], TYPE[v.get("to", tname)]
    m = Model()
    ids = m.input([v["ids"]], I32)
    q = (v["scale"], 0 if to == F32 else zero_point(rng, ty)) if ty == I8 else (None, None)
    table = m.tensor(v["table"], ty, random_input(rng, v["table"], NP[ty]), *q, name="table")
    out_q = (None, None) if to == F32 else q
    y = m.tensor([v["ids"]] + v["table"][1:], to, scale=out_q[0], zp=out_q[1])
    m.op(BIN.EMBEDDING_LOOKUP, [ids, table], y)
    m.make_input = lambda r: [r.integers(0, v["table"][0], [v["ids"]]).astype(np.int32)]
    return m, f"{v['ids']} ids into {v['table']}" + (f" to {v['to']}" if "to" in v else "")


def broadcast_args(rng, tname, v):
    """BROADCAST_ARGS of an input shape (random valid dims) and a constant one."""
    m = Model()
    a = m.input([len(v["a"])], I32)
    b = m.tensor([len(v["b"])], I32, np.array(v["b"]), name="shape")
    y = m.tensor([max(len(v["a"]), len(v["b"]))], I32)
    m.op(BIN.BROADCAST_ARGS, [a, b], y)
    # each dimension of `a`: its own value or 1 (where `b` broadcasts to it, any size)
    m.make_input = lambda r: [np.array([d if r.random() < 0.5 else 1 for d in v["a"]], np.int32)]
    return m, f"input like {v['a']} with {v['b']}"


# ---- the cases ------------------------------------------------------------------------------

BIN = s.BuiltinOperator
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
    ("TRANSPOSE_CONV", BIN.TRANSPOSE_CONV, ("int8", "int16"), transpose_conv, variants(TCONV)),
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
OPS.append(("L2_POOL_2D", BIN.L2_POOL_2D, ("float32",), pool(BIN.L2_POOL_2D), variants(AVG)))
for _name in ["LOG_SOFTMAX", "L2_NORMALIZATION"]:
    OPS.append((_name, getattr(BIN, _name), ("float32",), float_last_axis(getattr(BIN, _name)), [
        dict(**{"in": [1, 10]}, spread=1.5),
        dict(**{"in": [2, 3, 7]}, spread=4.0),
        dict(**{"in": [1, 4, 4, 12]}, spread=0.3),
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


def random_input(rng, shape, ty, spread=1.5, positive=False, whole=False):
    """Random values of numpy type `ty`: floats normal times `spread` (`positive`: |x| + 0.01),
    integers over their whole range, bools fair. `whole`: floats rounded to integers and int32
    in [-4, 4], so that comparisons find equal values."""
    if ty == np.float32:
        x = rng.standard_normal(shape) * spread
        x = np.round(x) if whole else x
        return (np.abs(x) + 0.01 if positive else x).astype(np.float32)
    if ty == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if whole and ty == np.int32:
        return rng.integers(-4, 5, shape).astype(ty)
    info = np.iinfo(ty)
    return rng.integers(info.min, info.max + 1, shape).astype(ty)


def run_tflm(model_bytes, inputs, n_outputs):
    """Each inference's outputs."""
    interp = runtime.Interpreter.from_bytes(model_bytes, arena_size=1 << 18)
    outputs = []
    for xs in inputs:
        for j, x in enumerate(xs):
            interp.set_input(x, j)
        interp.invoke()
        outputs.append([interp.get_output(j).copy() for j in range(n_outputs)])
    return outputs


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
                    n_outputs = len(model.ops[-1].outputs)
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
        with open(os.path.join(HERE, "cases.json"), "w") as f:
            json.dump({"inputs_per_case": INPUTS, "cases": cases,
                       "dropped": [{"case": c, "variant": d, "why": w} for c, d, w in dropped]}, f, indent=1)
            f.write("\n")
    print(len(cases), "cases,", len(dropped), "dropped")


if __name__ == "__main__":
    main()
