"""The parameter sweep for the Ethos-U device: single-operator int8 and int16x8 models over the
ranges the NPU's kernels take (kernel sizes 1-7, strides 1-3, dilation 1-3, SAME and VALID
padding, channels from 1 to 300, depth multipliers 1-4, average and max pools, convolutions whose
output goes through TANH or LOGISTIC), built with
test/models/tflite-ops' builders (tflite_builder.py, compute_ops.py: random weights and inputs
seeded by the case's name, TFLite Micro's outputs), then compiled by the project venv's Vela
5.2.0 for each configuration. A case Vela does not put wholly on the NPU is left out and listed.

Writes `cases/<case>.tflite` (the model), `ref/<case>/{input,output}_<k>.npy` (TFLite Micro's
reference kernels, three inputs) and `<configuration>/<case>.tflite` (Vela's), which
tests/sweep.rs runs.

Usage (a Python with tflite-micro, numpy, flatbuffers and ethos-u-vela==5.2.0, which reads Vela's
output; the Vela it runs is the project venv's):
python gen.py
"""

import os
import shutil
import subprocess
import sys
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../../../../.."))
sys.path.insert(0, os.path.join(ROOT, "test/models/tflite-ops"))
from compute_ops import ACTIVATION_OUT, conv_like, pool  # noqa: E402
from tflite_builder import BIN, NP, SAME, VALID, random_input, run_tflm  # noqa: E402

VELA = os.path.join(ROOT, ".venv/bin/vela")
CONFIGURATIONS = ["ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256", "ethos-u65-256", "ethos-u65-512"]
INPUTS = 3

# (name, builder, type, variant). Kernels 1-7, strides 1-3, dilations 1-3, both paddings;
# channels from 1 to 300 in and out; the OFM block and weight layout change with depth.
CONV = [
    ("k1_s1_c300to8", dict(in_=[1, 3, 3, 300], k=(1, 1), out=8, pad=VALID)),
    ("k1_s1_c3to300", dict(in_=[1, 4, 3, 3], k=(1, 1), out=300, pad=SAME, act="RELU")),
    ("k2_s2_c17to33", dict(in_=[1, 9, 8, 17], k=(2, 2), stride=(2, 2), out=33, pad=VALID)),
    ("k3_s1_c8to16", dict(in_=[1, 8, 9, 8], k=(3, 3), out=16, pad=SAME, act="RELU6")),
    ("k3_s3_c5to7", dict(in_=[1, 11, 10, 5], k=(3, 3), stride=(3, 3), out=7, pad=SAME)),
    ("k4_s2_c1to12", dict(in_=[1, 12, 10, 1], k=(4, 4), stride=(2, 2), out=12, pad=SAME)),
    ("k5_s1_c3to5", dict(in_=[1, 9, 9, 3], k=(5, 5), out=5, pad=VALID, per_channel=False)),
    ("k5_s3_c4to9", dict(in_=[1, 13, 11, 4], k=(5, 5), stride=(3, 3), out=9, pad=VALID)),
    ("k6_s2_c2to4", dict(in_=[1, 12, 12, 2], k=(6, 6), stride=(2, 2), out=4, pad=SAME)),
    ("k7_s1_c3to8", dict(in_=[1, 10, 9, 3], k=(7, 7), out=8, pad=SAME, act="RELU")),
    ("k7_s2_c3to64", dict(in_=[1, 14, 14, 3], k=(7, 7), stride=(2, 2), out=64, pad=SAME)),
    ("k1x7_s1_c6to10", dict(in_=[1, 5, 12, 6], k=(1, 7), out=10, pad=SAME)),
    ("k7x1_s1_c6to10", dict(in_=[1, 12, 5, 6], k=(7, 1), out=10, pad=VALID)),
    ("k5x3_s3x1_c4to6", dict(in_=[1, 13, 8, 4], k=(5, 3), stride=(3, 1), out=6, pad=SAME)),
    ("k3_d2_c6to8", dict(in_=[1, 10, 10, 6], k=(3, 3), dil=(2, 2), out=8, pad=SAME)),
    ("k3_d3_c4to5", dict(in_=[1, 11, 12, 4], k=(3, 3), dil=(3, 3), out=5, pad=VALID)),
    ("k2_d2x3_c3to4", dict(in_=[1, 9, 11, 3], k=(2, 2), dil=(2, 3), out=4, pad=SAME)),
    ("k3_s2_c64to64", dict(in_=[1, 7, 7, 64], k=(3, 3), stride=(2, 2), out=64, pad=SAME, act="RELU6")),
    ("k3_s1_c33to47", dict(in_=[1, 5, 6, 33], k=(3, 3), out=47, pad=SAME)),
    ("k1_s1_batch3", dict(in_=[3, 4, 4, 5], k=(1, 1), out=6, pad=VALID)),
]
DEPTHWISE = [
    ("k3_s1_c1", dict(in_=[1, 9, 9, 1], k=(3, 3), pad=SAME)),
    ("k3_s2_c300", dict(in_=[1, 5, 5, 300], k=(3, 3), stride=(2, 2), pad=SAME, act="RELU6")),
    ("k5_s1_c17", dict(in_=[1, 8, 9, 17], k=(5, 5), pad=SAME)),
    ("k7_s3_c8", dict(in_=[1, 15, 14, 8], k=(7, 7), stride=(3, 3), pad=VALID)),
    ("k4_s2_c33", dict(in_=[1, 10, 10, 33], k=(4, 4), stride=(2, 2), pad=SAME)),
    ("k2_s1_mult2", dict(in_=[1, 7, 6, 5], k=(2, 2), mult=2, pad=VALID)),
    ("k3_s1_mult3", dict(in_=[1, 6, 7, 4], k=(3, 3), mult=3, pad=SAME, act="RELU")),
    ("k1_s1_mult4", dict(in_=[1, 5, 5, 3], k=(1, 1), mult=4, pad=VALID)),
    ("k3_d2_c16", dict(in_=[1, 10, 11, 16], k=(3, 3), dil=(2, 2), pad=SAME)),
    ("k6x2_s3x2_c7", dict(in_=[1, 14, 9, 7], k=(6, 2), stride=(3, 2), pad=SAME)),
]
POOLS = [
    ("avg_k2_s2_c16", BIN.AVERAGE_POOL_2D, dict(in_=[1, 8, 8, 16], k=(2, 2), stride=(2, 2), pad=VALID)),
    ("avg_k3_s1_c300", BIN.AVERAGE_POOL_2D, dict(in_=[1, 4, 4, 300], k=(3, 3), stride=(1, 1), pad=SAME)),
    ("avg_k5_s3_c7", BIN.AVERAGE_POOL_2D, dict(in_=[1, 13, 11, 7], k=(5, 5), stride=(3, 3), pad=SAME)),
    ("avg_k7_s1_c9", BIN.AVERAGE_POOL_2D, dict(in_=[1, 7, 7, 9], k=(7, 7), stride=(1, 1), pad=VALID)),
    ("avg_k1x6_s1x2_c4", BIN.AVERAGE_POOL_2D, dict(in_=[1, 5, 12, 4], k=(1, 6), stride=(1, 2), pad=SAME)),
    ("max_k2_s2_c33", BIN.MAX_POOL_2D, dict(in_=[1, 9, 9, 33], k=(2, 2), stride=(2, 2), pad=SAME)),
    ("max_k3_s3_c1", BIN.MAX_POOL_2D, dict(in_=[1, 11, 10, 1], k=(3, 3), stride=(3, 3), pad=VALID)),
    ("max_k7_s2_c12", BIN.MAX_POOL_2D, dict(in_=[1, 14, 13, 12], k=(7, 7), stride=(2, 2), pad=SAME)),
    ("max_k4x2_s1_c300", BIN.MAX_POOL_2D, dict(in_=[1, 5, 4, 300], k=(4, 2), stride=(1, 1), pad=VALID)),
]

# A convolution's output through TANH or LOGISTIC, which Vela makes the convolution's activation
# (a lookup table for int8, the TANH or SIGMOID function for int16): (name, kind, variant, the
# activation, the types).
ACTIVATED = [
    ("conv_k3_s1_c8to16_tanh", "conv", CONV[3][1], BIN.TANH, ("int8", "int16")),
    ("conv_k1_s1_c3to300_logistic", "conv", CONV[1][1], BIN.LOGISTIC, ("int8",)),
    ("depthwise_k5_s1_c17_logistic", "depthwise", DEPTHWISE[2][1], BIN.LOGISTIC, ("int8", "int16")),
    ("depthwise_k3_s1_mult3_tanh", "depthwise", DEPTHWISE[6][1], BIN.TANH, ("int8",)),
]


def then(build, code):
    """`build`'s model with `code` (TANH or LOGISTIC) on its output, quantized as TFLite wants the
    activation's output (int8: compute_ops' ACTIVATION_OUT; int16: 2^-15, zero point 0)."""
    name = "TANH" if code == BIN.TANH else "LOGISTIC"

    def built(rng, tname, v):
        m, desc = build(rng, tname, {k: x for k, x in v.items() if k != "act"})
        y = m.ops[-1].outputs[0]
        m.tensors[y].name = "hidden"
        scale, zp = ACTIVATION_OUT[name] if tname == "int8" else (2.0**-15, 0)
        z = m.tensor(m.tensors[y].shape, m.tensors[y].type, scale=scale, zp=zp)
        m.op(code, [y], z)
        return m, f"{desc}, then {name}"

    return built


def cases():
    for name, v in CONV:
        for tname in ("int8", "int16") if name in ("k3_s1_c8to16", "k7_s2_c3to64", "k1_s1_c300to8") else ("int8",):
            yield f"conv_{name}_{tname}", conv_like("conv"), tname, v
    for name, v in DEPTHWISE:
        for tname in ("int8", "int16") if name in ("k3_s2_c300", "k3_s1_mult3") else ("int8",):
            yield f"depthwise_{name}_{tname}", conv_like("depthwise"), tname, v
    for name, code, v in POOLS:
        for tname in ("int8", "int16") if name in ("avg_k3_s1_c300", "max_k7_s2_c12") else ("int8",):
            yield f"pool_{name}_{tname}", pool(code), tname, v
    for name, kind, v, code, types in ACTIVATED:
        for tname in types:
            yield f"{name}_{tname}", then(conv_like(kind), code), tname, v


def on_npu(path):
    """Whether Vela's model at `path` is one ethos-u operator."""
    from ethosu.vela.tflite.Model import Model

    m = Model.GetRootAsModel(open(path, "rb").read(), 0)
    sg = m.Subgraphs(0)
    codes = [m.OperatorCodes(sg.Operators(i).OpcodeIndex()).CustomCode() for i in range(sg.OperatorsLength())]
    return codes == [b"ethos-u"]


def main():
    for d in ["cases", "ref"] + CONFIGURATIONS:
        shutil.rmtree(os.path.join(HERE, d), ignore_errors=True)
        os.makedirs(os.path.join(HERE, d))
    left_out = []
    with tempfile.TemporaryDirectory() as work:
        for case, build, tname, v in cases():
            v = {("in" if k == "in_" else k): x for k, x in v.items()}
            rng = np.random.default_rng(zlib.crc32(case.encode()))
            model, desc = build(rng, tname, v)
            data = model.finish()
            inputs = [[random_input(rng, model.tensors[i].shape, NP[model.tensors[i].type]) for i in model.inputs]
                      for _ in range(INPUTS)]
            outputs = run_tflm(data, inputs, 1)
            source = os.path.join(HERE, "cases", f"{case}.tflite")
            open(source, "wb").write(data)
            compiled = []
            for configuration in CONFIGURATIONS:
                out = os.path.join(work, configuration)
                subprocess.run([VELA, "--accelerator-config", configuration, "--output-dir", out, source],
                               check=True, stdout=subprocess.DEVNULL)
                vela = os.path.join(out, f"{case}_vela.tflite")
                if not on_npu(vela):
                    break
                compiled.append((configuration, vela))
            if len(compiled) < len(CONFIGURATIONS):
                os.remove(source)
                left_out.append(case)
                print("left out (not wholly on the NPU):", case, desc)
                continue
            for configuration, vela in compiled:
                shutil.copy(vela, os.path.join(HERE, configuration, f"{case}.tflite"))
            ref = os.path.join(HERE, "ref", case)
            os.makedirs(ref)
            for k, (xs, ys) in enumerate(zip(inputs, outputs)):
                np.save(os.path.join(ref, f"input_{k}.npy"), xs[0])
                np.save(os.path.join(ref, f"output_{k}.npy"), ys[0])
            print(case, desc)
    print(len(os.listdir(os.path.join(HERE, "cases"))), "cases;", len(left_out), "left out:", " ".join(left_out))


if __name__ == "__main__":
    main()
