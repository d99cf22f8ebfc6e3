"""gen.py's builders of the operators with state carried from one inference to the next: SVDF
(a variable tensor). Each takes (rng, type name, variant) and returns (Model, description); the
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
