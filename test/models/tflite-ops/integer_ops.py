"""gen.py's builders of operators whose int8 kernels TFLite Micro computes in fixed point with
shifts that depend on the data: DIV, and LOG_SOFTMAX and L2_NORMALIZATION over the last dimension
(their float32 versions too). Each takes (rng, type name, variant) and returns (Model,
description)."""
import numpy as np

from tflite_builder import *  # noqa: F401,F403


def div_int8(rng, tname, v):
    """int8 DIV: a / b, broadcasting; the divisor never its zero point (a real 0, undefined)."""
    m = Model()
    sa, sb, so = v["scales"]
    a = m.input(v["a"], I8, sa, zero_point(rng, I8))
    zb = zero_point(rng, I8)
    if v.get("const"):
        data = rng.integers(-128, 128, v["b"])
        data[data == zb] = zb + 1
        b = m.tensor(v["b"], I8, data, sb, zb, name="constant")
    else:
        b = m.input(v["b"], I8, sb, zb)

        def make_input(rng):
            x = random_input(rng, v["a"], np.int8)
            y = random_input(rng, v["b"], np.int8)
            y[y == zb] = zb + 1
            return [x, y]
        m.make_input = make_input
    oshape = list(np.broadcast_shapes(tuple(v["a"]), tuple(v["b"])))
    act = v.get("act", "NONE")
    y = m.tensor(oshape, I8, scale=so, zp=zero_point(rng, I8))
    m.op(BIN.DIV, [a, b], y, OPTIONS.DivOptions, opts(s.DivOptionsT, fusedActivationFunction=act_opt(act)))
    return m, (f"{v['a']} / {v['b']}{' (constant)' if v.get('const') else ''}, {act}, scales {sa}, {sb} to {so}"
               + (f": {v['note']}" if "note" in v else ""))


def float_last_axis(code):
    """LOG_SOFTMAX, L2_NORMALIZATION over the last dimension, float32 and int8 (the output
    quantization TFLite Micro requires: LOG_SOFTMAX scale 16/256 and zero point 127,
    L2_NORMALIZATION 1/128 and 0)."""
    def build(rng, tname, v):
        m = Model()
        if tname == "int8":
            x = m.input(v["in"], I8, v["scale"], zero_point(rng, I8))
            if code == BIN.LOG_SOFTMAX:
                y = m.tensor(v["in"], I8, scale=16 / 256, zp=127)
                m.op(code, [x], y, OPTIONS.LogSoftmaxOptions, s.LogSoftmaxOptionsT())
            else:
                y = m.tensor(v["in"], I8, scale=1 / 128, zp=0)
                m.op(code, [x], y, OPTIONS.L2NormOptions, opts(s.L2NormOptionsT, fusedActivationFunction=0))
            return m, f"{v['in']}, input scale {v['scale']}"
        x = m.input(v["in"], F32)
        y = m.tensor(v["in"], F32)
        if code == BIN.LOG_SOFTMAX:
            m.op(code, [x], y, OPTIONS.LogSoftmaxOptions, s.LogSoftmaxOptionsT())
        else:
            m.op(code, [x], y, OPTIONS.L2NormOptions, opts(s.L2NormOptionsT, fusedActivationFunction=0))
        m.input_scale = v.get("spread", 1.5)
        return m, f"{v['in']}, inputs x{m.input_scale}"
    return build
