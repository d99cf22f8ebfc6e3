"""gen.py's builders of the operators that move data (TFLite Micro copies raw elements: every
data operand and result shares one quantization; int16 zero point 0) and pick it by index:
concatenation, packing, splitting, slicing, gathers, resizes, padding and the batch/space
rearrangements. Each takes (rng, type name, variant) and returns (Model, description)."""
import numpy as np

from tflite_builder import *  # noqa: F401,F403



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
