"""What gen.py's operator builders share: the TFLite schema's Python object API (no TensorFlow),
a model written as a flatbuffer (one subgraph, or more for CALL_ONCE), quantization helpers, random inputs, and a run of
TensorFlow Lite Micro's reference kernels."""
import os
import sys

import flatbuffers
import numpy as np
import tflite_micro
from tflite_micro.python.tflite_micro import runtime

sys.path.insert(0, os.path.join(os.path.dirname(tflite_micro.__file__), "tensorflow", "lite", "micro", "python"))
import schema_py_generated as s  # noqa: E402


F32, I32, I64, I16, I8 = s.TensorType.FLOAT32, s.TensorType.INT32, s.TensorType.INT64, s.TensorType.INT16, s.TensorType.INT8
BOOL = s.TensorType.BOOL
NP = {F32: np.float32, I32: np.int32, I64: np.int64, I16: np.int16, I8: np.int8, BOOL: np.bool_}
TYPE = {"int8": I8, "int16": I16, "float32": F32, "int32": I32, "int64": I64, "bool": BOOL}
ACT = {"NONE": 0, "RELU": 1, "RELU6": 3}
SAME, VALID = s.Padding.SAME, s.Padding.VALID
PAD_NAME = {SAME: "SAME", VALID: "VALID"}
OPTIONS = s.BuiltinOptions
BIN = s.BuiltinOperator


class Model:
    """One subgraph under construction (the model's first, or one `subgraph()` added to it)."""

    def __init__(self, parent=None):
        self.buffers = parent.buffers if parent else [s.BufferT()]
        self.codes = parent.codes if parent else []
        self.tensors = []
        self.ops = []
        self.inputs = []
        self.outputs = None  # None: the last operator's outputs
        self.subgraphs = []  # the model's further subgraphs (parent only)

    def subgraph(self):
        """A further subgraph of the model sharing its buffers and operator codes: (index, it)."""
        g = Model(self)
        self.subgraphs.append(g)
        return len(self.subgraphs), g

    def output_tensors(self):
        return self.outputs if self.outputs is not None else list(self.ops[-1].outputs)

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
            if self.tensors[t].name == f"t{t}":  # named by tensor(): kept
                self.tensors[t].name = "output" if len(outputs) == 1 else f"output{j}"

    def graph(self, name):
        """This subgraph as the schema's object."""
        sg = s.SubGraphT()
        sg.tensors = self.tensors
        sg.inputs = self.inputs
        sg.outputs = self.output_tensors() if self.ops else []
        sg.operators = self.ops
        sg.name = name
        return sg

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
        m.subgraphs = [self.graph("main")] + [g.graph(f"subgraph{k + 1}") for k, g in enumerate(self.subgraphs)]
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


def act_opt(act):
    return ACT[act]


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
