"""gen.py's builders of the control-flow operators, whose work is in further subgraphs: IF (a
branch picked by a BOOL) and WHILE (a loop over subgraphs). Each takes (rng, type name, variant)
and returns (Model, description)."""
import numpy as np

from tflite_builder import *  # noqa: F401,F403


def _quant(rng, ty, scale):
    return (None, None) if ty == F32 else (scale, zero_point(rng, ty))


def _binary(g, code, a, b, out):
    options = {BIN.ADD: (OPTIONS.AddOptions, s.AddOptionsT), BIN.SUB: (OPTIONS.SubOptions, s.SubOptionsT),
               BIN.MUL: (OPTIONS.MulOptions, s.MulOptionsT)}[code]
    g.op(code, [a, b], out, options[0], opts(options[1]))


def if_op(rng, tname, v):
    """IF(c, x, w): then x + w, else x * w (int8: each branch's result quantized on its own)."""
    ty = TYPE[tname]
    m = Model()
    shape = v["in"]
    scale, zp = _quant(rng, ty, v.get("scale", 0.05))
    c = m.input([1], BOOL)
    x = m.input(shape, ty, scale, zp)
    w = m.input(shape, ty, scale, zp)
    out_scale, out_zp = _quant(rng, ty, 2.5 * v.get("scale", 0.05))
    branches = []
    for code in (BIN.ADD, BIN.MUL):
        index, g = m.subgraph()
        a, b = g.input(shape, ty, scale, zp), g.input(shape, ty, scale, zp)
        y = g.tensor(shape, ty, scale=out_scale, zp=out_zp, name="branch_result")
        _binary(g, code, a, b, y)
        branches.append(index)
    y = m.tensor(shape, ty, scale=out_scale, zp=out_zp, name="result")
    m.op(BIN.IF, [c, x, w], y, OPTIONS.IfOptions,
         opts(s.IfOptionsT, thenSubgraphIndex=branches[0], elseSubgraphIndex=branches[1]))
    return m, f"{shape}, IF(c) x + w ELSE x * w"


def while_op(rng, tname, v):
    """WHILE(i < n): i += 1, acc = acc * 0.5 + x, from acc = x and i = 0; n (0 to 4) is an input,
    so the trip count varies with the inference. Returns i and acc."""
    ty = TYPE[tname]
    m = Model()
    shape = v["in"]
    scale, zp = _quant(rng, ty, v.get("scale", 0.05))
    x = m.input(shape, ty, scale, zp)
    n = m.input([1], F32)
    m.make_input = lambda rng: [random_input(rng, shape, NP[ty]), rng.integers(0, 5, [1]).astype(np.float32)]
    zero = m.tensor([1], F32, np.zeros(1), name="zero")
    loop = [zero, x, x, n]  # i, acc, x, n

    def carried(g):
        return [g.input([1], F32), g.input(shape, ty, scale, zp), g.input(shape, ty, scale, zp), g.input([1], F32)]

    cond_index, cond = m.subgraph()
    i, _, _, limit = carried(cond)
    go = cond.tensor([1], BOOL, name="go")
    cond.op(BIN.LESS, [i, limit], go)
    body_index, body = m.subgraph()
    i, acc, bx, limit = carried(body)
    one = body.tensor([1], F32, np.ones(1), name="one")
    i2 = body.tensor([1], F32, name="i_next")
    _binary(body, BIN.ADD, i, one, i2)
    half = body.tensor([1], ty, np.array([0.5]) if ty == F32 else np.array([64]),
                       *((None, None) if ty == F32 else (1 / 128, 0)), name="half")
    halved = body.tensor(shape, ty, scale=scale, zp=zp, name="halved")
    _binary(body, BIN.MUL, acc, half, halved)
    acc2 = body.tensor(shape, ty, scale=scale, zp=zp, name="acc_next")
    _binary(body, BIN.ADD, halved, bx, acc2)
    body.outputs = [i2, acc2, bx, limit]
    outs = [m.tensor([1], F32, name="count"), m.tensor(shape, ty, scale=scale, zp=zp, name="acc"),
            m.tensor(shape, ty, scale=scale, zp=zp, name="x_out"), m.tensor([1], F32, name="limit")]
    m.op(BIN.WHILE, loop, outs, OPTIONS.WhileOptions,
         opts(s.WhileOptionsT, condSubgraphIndex=cond_index, bodySubgraphIndex=body_index))
    m.outputs = outs[:2]
    return m, f"{shape}, WHILE i < n (n in 0..4): acc = acc / 2 + x"
