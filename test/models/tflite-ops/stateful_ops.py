"""gen.py's builders of the operators with state carried from one inference to the next: SVDF
(a variable tensor), resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) and CALL_ONCE
(their initial values). Each takes (rng, type name, variant) and returns (Model, description); the
three inferences of a case run in order on one interpreter, so the state they see is the one the
earlier inferences left."""
import numpy as np

from tflite_builder import *  # noqa: F401,F403


def svdf(rng, tname, v):
    """SVDF on [batch, input]: `filters` feature filters of `memory` steps, `rank` per unit.
    int8: the state and time weights int16 (or int8, `state="int8"`, with a zero point)."""
    ty = TYPE[tname]
    m = Model()
    batch, n_in = v["in"]
    filters, rank, memory = v["filters"], v["rank"], v["memory"]
    units = filters // rank
    act = v.get("act", "NONE")
    if ty == F32:
        x = m.input([batch, n_in], F32)
        wf = m.tensor([filters, n_in], F32, rng.normal(0, 1 / np.sqrt(n_in), (filters, n_in)), name="weights_feature")
        wt = m.tensor([filters, memory], F32, rng.normal(0, 0.6, (filters, memory)), name="weights_time")
        b = m.tensor([units], F32, rng.normal(0, 0.3, units), name="bias")
        st = m.tensor([batch, filters * memory], F32, name="state")
        y = m.tensor([batch, units], F32)
        desc = ""
    else:
        state_ty = TYPE[v.get("state", "int16")]
        in_scale = v["scale"]
        x = m.input([batch, n_in], I8, in_scale, zero_point(rng, I8))
        wf_scale = v.get("wscale", 0.01)
        wf = m.tensor([filters, n_in], I8, rng.integers(-127, 128, (filters, n_in)), wf_scale, 0,
                      name="weights_feature")
        # The state spans the projection's spread (int16: std ~ 8000, int8: ~ 40).
        projection_std = RSTD[I8] * in_scale * 73 * wf_scale * np.sqrt(n_in)
        state_scale = float(projection_std / QSTD[state_ty])
        state_zp = zero_point(rng, state_ty)
        if state_ty == I16:
            wt_data, time_std = rng.integers(-16000, 16001, (filters, memory)), 9240.0
        else:
            wt_data, time_std = rng.integers(-127, 128, (filters, memory)), 73.0
        time_scale = v.get("tscale", 1e-4 if state_ty == I16 else 0.01)
        wt = m.tensor([filters, memory], state_ty, wt_data, time_scale, 0, name="weights_time")
        acc_std = QSTD[state_ty] * time_std * np.sqrt(memory * rank)
        b = m.tensor([units], I32, np.round(rng.normal(0, 0.3 * acc_std, units)), state_scale * time_scale, 0,
                     name="bias")
        st = m.tensor([batch, filters * memory], state_ty, scale=state_scale, zp=state_zp, name="state")
        y = m.tensor([batch, units], I8, scale=float(acc_std * state_scale * time_scale / QSTD[I8]),
                     zp=zero_point(rng, I8))
        desc = f", {v.get('state', 'int16')} state (zero point {state_zp}), input scale {in_scale}"
    m.tensors[st].isVariable = True
    o = opts(s.SVDFOptionsT, rank=rank, fusedActivationFunction=act_opt(act))
    m.op(BIN.SVDF, [x, wf, wt, b, st], y, OPTIONS.SVDFOptions, o)
    return m, f"[{batch}, {n_in}], {filters} filters of memory {memory}, rank {rank}, {act}" + desc


def _quant(ty, scale, zp):
    return (None, None) if ty == F32 else (scale, zp)


def variables(rng, tname, v):
    """An accumulator in resource variables: y = x + state; state = y, over the inferences.
    `init`: CALL_ONCE's init subgraph assigns the variable a constant first (else it starts at
    TFLite Micro's default, the int8 zero point); `reread`: the variable is read again after
    the assignment (a second output, MUL by a constant); `second`: a second variable holding the
    previous input, subtracted (a third output)."""
    ty = TYPE[tname]
    m = Model()
    shape = v["in"]
    scale, zp = _quant(ty, v.get("scale", 0.05), zero_point(rng, ty))
    x = m.input(shape, ty, scale, zp)

    def handle(g, name):
        h = g.tensor([], s.TensorType.RESOURCE, name=f"{name}_handle")
        g.op(BIN.VAR_HANDLE, [], h, OPTIONS.VarHandleOptions, opts(s.VarHandleOptionsT, sharedName=name))
        return h

    def value(g, name, data=None):
        return g.tensor(shape, ty, data, scale, zp, name=name)

    desc = f"{shape}, y = x + acc; acc = y"
    call = None
    if v.get("init"):
        index, init = m.subgraph()
        start = value(init, "acc_start", random_input(rng, shape, NP[ty], 1.0))
        if v.get("init_computes"):  # the init subgraph adds the constant to itself
            doubled = value(init, "acc_doubled")
            init.op(BIN.ADD, [start, start], doubled, OPTIONS.AddOptions, opts(s.AddOptionsT))
            start = doubled
            desc += ", acc's first value computed by CALL_ONCE's init subgraph"
        else:
            desc += ", acc's first value assigned by CALL_ONCE's init subgraph"
        init.op(BIN.ASSIGN_VARIABLE, [handle(init, "acc"), start], [])
        call = (BIN.CALL_ONCE, [], [], OPTIONS.CallOnceOptions, opts(s.CallOnceOptionsT, initSubgraphIndex=index))
        if not v.get("late_call"):
            m.op(*call)
    acc = handle(m, "acc")
    state = value(m, "acc_value")
    m.op(BIN.READ_VARIABLE, [acc], state)
    if v.get("late_call"):  # after the first read: the first inference reads the default
        m.op(*call)
        desc += " after acc's first read"
    y = value(m, "sum")
    m.op(BIN.ADD, [x, state], y, OPTIONS.AddOptions, opts(s.AddOptionsT))
    m.op(BIN.ASSIGN_VARIABLE, [acc, y], [])
    outputs = [y]
    if v.get("reread"):
        again = value(m, "acc_again")
        m.op(BIN.READ_VARIABLE, [acc], again)
        half = m.tensor([1], ty, np.array([0.5]) if ty == F32 else np.array([64]), *_quant(ty, 1 / 128, 0),
                        name="half")
        z = value(m, "half_acc")
        m.op(BIN.MUL, [again, half], z, OPTIONS.MulOptions, opts(s.MulOptionsT))
        outputs.append(z)
        desc += ", read again after the assignment"
    if v.get("second"):
        prev = handle(m, "previous")
        p = value(m, "previous_value")
        m.op(BIN.READ_VARIABLE, [prev], p)
        d = value(m, "difference")
        m.op(BIN.SUB, [x, p], d, OPTIONS.SubOptions, opts(s.SubOptionsT))
        m.op(BIN.ASSIGN_VARIABLE, [prev, x], [])
        outputs.append(d)
        desc += ", a second variable holding the previous input"
    m.outputs = outputs
    return m, desc


def invalid_state(kind):
    """Models umac's reader must refuse, at the operator named in gen.py's INVALID (svdf_hybrid is
    valid TFLite that the reader does not take: without the converter, an error there too)."""
    m = Model()
    x = m.input([1, 4], F32)

    def handle(g, name="acc"):
        h = g.tensor([], s.TensorType.RESOURCE, name=f"{name}_handle")
        g.op(BIN.VAR_HANDLE, [], h, OPTIONS.VarHandleOptions, opts(s.VarHandleOptionsT, sharedName=name))
        return h

    if kind == "svdf_hybrid":  # float32 input, int8 weights: valid, but not a kind umac reads
        wf = m.tensor([2, 4], I8, np.ones((2, 4)), 0.01, 0, name="weights_feature")
        wt = m.tensor([2, 3], F32, np.ones((2, 3)), name="weights_time")
        st = m.tensor([1, 6], F32, name="state")
        m.tensors[st].isVariable = True
        m.op(BIN.SVDF, [x, wf, wt, -1, st], m.tensor([1, 2], F32), OPTIONS.SVDFOptions, opts(s.SVDFOptionsT, rank=1))
        return m
    if kind == "svdf_state_not_variable":
        wf = m.tensor([2, 4], F32, np.ones((2, 4)), name="weights_feature")
        wt = m.tensor([2, 3], F32, np.ones((2, 3)), name="weights_time")
        b = m.tensor([2], F32, np.zeros(2), name="bias")
        st = m.tensor([1, 6], F32, name="state")
        m.op(BIN.SVDF, [x, wf, wt, b, st], m.tensor([1, 2], F32), OPTIONS.SVDFOptions, opts(s.SVDFOptionsT, rank=1))
        return m
    if kind in ("call_once_cycle", "call_once_bad_index"):
        index, init = m.subgraph()
        c = init.tensor([1, 4], F32, np.ones((1, 4)), name="one")
        init.op(BIN.ASSIGN_VARIABLE, [handle(init), c], [])
        target = index if kind == "call_once_cycle" else 5  # itself, or no subgraph
        once = (BIN.CALL_ONCE, [], [], OPTIONS.CallOnceOptions, opts(s.CallOnceOptionsT, initSubgraphIndex=target))
        if kind == "call_once_cycle":
            init.op(*once)
        m.op(*once)
    h = handle(m)
    v = m.tensor([1, 4], F32, name="acc_value")
    m.op(BIN.READ_VARIABLE, [h], v)
    y = m.tensor([1, 4], F32, name="sum")
    m.op(BIN.ADD, [x, v], y, OPTIONS.AddOptions, opts(s.AddOptionsT))
    if kind != "read_never_assigned":
        m.op(BIN.ASSIGN_VARIABLE, [h, y], [])
    m.outputs = [y]
    return m
