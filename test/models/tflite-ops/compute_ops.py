"""gen.py's builders of the computing operators: convolutions, pools, elementwise arithmetic and
activations, softmax, quantization, reductions, comparisons and logic, matrix products. Each
takes (rng, type name, variant) and returns (Model, description)."""
import numpy as np

from tflite_builder import *  # noqa: F401,F403


POSITIVE = {"LOG", "SQRT", "RSQRT"}  # float inputs made positive: |x| + 0.01
# zero point -128 for LOGISTIC and ignores TANH's; int16 requires 2^-15).
ACTIVATION_OUT = {"LOGISTIC": (1 / 256, -128), "TANH": (1 / 128, 0)}


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


def cumsum(rng, tname, v):
    """CUMSUM along a constant axis, exclusive and reverse as options; int8 into a wider scale."""
    ty = TYPE[tname]
    m = Model()
    q = (v["scale"], zero_point(rng, ty)) if ty == I8 else (None, None)
    x = m.input(v["in"], ty, *q)
    axis = m.tensor([1], I32, np.array([v["axis"]]), name="axis")
    length = v["in"][v["axis"]]
    qo = (v["scale"] * np.sqrt(length) * 1.5, zero_point(rng, ty)) if ty == I8 else (None, None)
    y = m.tensor(v["in"], ty, scale=qo[0], zp=qo[1])
    m.op(BIN.CUMSUM, [x, axis], y, OPTIONS.CumsumOptions,
         opts(s.CumsumOptionsT, exclusive=v.get("exclusive", False), reverse=v.get("reverse", False)))
    return m, (f"{v['in']} along axis {v['axis']}" + (" exclusive" if v.get("exclusive") else "")
               + (" reverse" if v.get("reverse") else ""))
