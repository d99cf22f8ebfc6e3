"""Makes test/models/pytorch/<model>/ from three small random-weight PyTorch models.

Each model is quantized with ExecuTorch's Arm backend (TOSAQuantizer, per-channel symmetric
weights, int8 activations, calibrated on 8 fixed random inputs) and lowered with TOSAPartitioner
to one TOSA-1.0+INT partition. For each model this writes:

    model.tosa      the TOSA 1.0 flatbuffer (the delegate's bytes; int8 in, int8 out)
    model.mlir      tosa-opt --tosa-deserialize of model.tosa
    meta.json       input/output quantization, versions, seed
    ref/input_<i>.npy         int8, the .tosa input tensor's shape (NCHW / NC, as torch has it)
    ref/output_<i>.npy        tosa_reference_model's int8 output
    ref/torch_output_<i>.npy  the quantized torch model's output, requantized to int8

Run by gen.sh (which makes the venv); usage: gen.py OUT_DIR.
"""

import json
import os
import subprocess
import sys
import tempfile
from importlib.metadata import version

import numpy as np
import torch
from torch import nn

from executorch.backends.arm.quantizer import TOSAQuantizer, get_symmetric_quantization_config
from executorch.backends.arm.tosa.compile_spec import TosaCompileSpec
from executorch.backends.arm.tosa.partitioner import TOSAPartitioner
from executorch.exir import to_edge_transform_and_lower
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
import tosa_reference_model

SEED = 20261129
N_CALIB = 8
N_REF = 5
TOSA_SPEC = "TOSA-1.0+INT"


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=1, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        x = self.pool(x)
        return self.fc(torch.flatten(x, 1))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.act = nn.ReLU6()
        self.pw = nn.Conv2d(8, 8, 1)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        y = self.pw(self.act(self.dw(x)))
        return self.pool(x + y)


MODELS = {
    "cnn": (Cnn, (1, 3, 16, 16)),
    "mlp": (Mlp, (1, 32)),
    "residual": (Residual, (1, 8, 12, 12)),
}


def qdq_params(graph_module):
    """(scale, zero_point, dtype) of the input quantize and the output dequantize."""
    graph = graph_module.graph
    placeholder = next(n for n in graph.nodes if n.op == "placeholder")
    (quant,) = [u for u in placeholder.users if "quantize_per_tensor" in str(u.target)]
    output = next(n for n in graph.nodes if n.op == "output")
    (dequant,) = output.args[0]
    assert "dequantize_per_tensor" in str(dequant.target), dequant.target
    result = []
    for node in (quant, dequant):
        _, scale, zero_point, qmin, qmax, dtype = node.args[:6]
        assert (qmin, qmax, dtype) == (-128, 127, torch.int8), node.args
        result.append((float(scale), int(zero_point), "int8"))
    return result


def quantize(x, scale, zero_point):
    return np.clip(np.round(x / scale) + zero_point, -128, 127).astype(np.int8)


def build(name, out_dir, tosa_opt):
    with tempfile.TemporaryDirectory(prefix=f"umac-tosa-{name}-") as dump:
        build_in(name, out_dir, tosa_opt, dump)


def build_in(name, out_dir, tosa_opt, dump):
    cls, shape = MODELS[name]
    torch.manual_seed(SEED)
    model = cls().eval()
    gen = torch.Generator().manual_seed(SEED + 1)
    calib = [torch.randn(shape, generator=gen) for _ in range(N_CALIB)]
    example = (calib[0],)

    spec = TosaCompileSpec(TOSA_SPEC)
    spec.dump_intermediate_artifacts_to(dump)
    quantizer = TOSAQuantizer(spec)
    quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
    exported = torch.export.export(model, example).module(check_guards=False)
    prepared = prepare_pt2e(exported, quantizer)
    with torch.no_grad():
        for x in calib:
            prepared(x)
    quantized = convert_pt2e(prepared)
    (in_scale, in_zp, in_dtype), (out_scale, out_zp, out_dtype) = qdq_params(quantized)

    lowered = to_edge_transform_and_lower(
        torch.export.export(quantized, example), partitioner=[TOSAPartitioner(spec)]
    )
    graph = lowered.exported_program().graph
    delegates = [n for n in graph.nodes if n.op == "call_function" and "executorch_call_delegate" in str(n.target)]
    others = [
        str(n.target)
        for n in graph.nodes
        if n.op == "call_function"
        and "executorch_call_delegate" not in str(n.target)
        and "getitem" not in str(n.target)
        and "quantize_per_tensor" not in str(n.target)
    ]
    tosa_files = sorted(f for f in os.listdir(dump) if f.endswith(".tosa"))
    assert len(delegates) == 1 and len(tosa_files) == 1, (name, delegates, tosa_files)
    assert not others, f"{name}: ops left outside the delegate: {others}"
    with open(os.path.join(dump, tosa_files[0]), "rb") as f:
        flatbuffer = f.read()

    here = os.path.join(out_dir, name)
    os.makedirs(os.path.join(here, "ref"), exist_ok=True)
    with open(os.path.join(here, "model.tosa"), "wb") as f:
        f.write(flatbuffer)
    empty = os.path.join(dump, "empty.mlir")
    open(empty, "w").close()
    subprocess.run(
        [tosa_opt, f"--tosa-deserialize=tosa-flatbuffer-filename={os.path.join(here, 'model.tosa')}",
         empty, "-o", os.path.join(here, "model.mlir")],
        check=True,
    )

    # Reference inputs: fresh random floats, quantized with the graph's input quantization.
    out_shape = None
    max_diff = 0
    for i in range(N_REF):
        q_in = quantize(torch.randn(shape, generator=gen).numpy(), in_scale, in_zp)
        outs, status = tosa_reference_model.run(flatbuffer, [q_in])
        assert status == tosa_reference_model.GraphStatus.TOSA_VALID, (name, status)
        (ref,) = outs
        assert ref.dtype == np.int8, ref.dtype
        # The torch model: dequantized input (quantizes back to q_in exactly), output requantized.
        x = torch.from_numpy((q_in.astype(np.float32) - in_zp) * np.float32(in_scale))
        with torch.no_grad():
            y = quantized(x)
        q_torch = quantize(y.numpy(), out_scale, out_zp)
        out_shape = list(ref.shape)
        max_diff = max(max_diff, int(np.abs(ref.astype(np.int16) - q_torch.astype(np.int16)).max()))
        np.save(os.path.join(here, "ref", f"input_{i}.npy"), q_in)
        np.save(os.path.join(here, "ref", f"output_{i}.npy"), ref)
        np.save(os.path.join(here, "ref", f"torch_output_{i}.npy"), q_torch)

    meta = {
        "model": name,
        "tosa_spec": TOSA_SPEC,
        "input": {"shape": list(shape), "dtype": in_dtype, "scale": in_scale, "zero_point": in_zp},
        "output": {"shape": out_shape, "dtype": out_dtype, "scale": out_scale, "zero_point": out_zp},
        "seed": SEED,
        "calibration_inputs": N_CALIB,
        "reference_inputs": N_REF,
        "max_lsb_difference_reference_vs_torch": max_diff,
        "versions": {p: version(p) for p in ("torch", "executorch", "tosa-tools", "torchao", "numpy")},
    }
    with open(os.path.join(here, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    print(f"{name}: {len(flatbuffer)} bytes of .tosa, reference vs torch: max {max_diff} LSB")


def main():
    out_dir = sys.argv[1]
    tosa_opt = os.path.join(os.path.dirname(sys.executable), "tosa-opt")
    torch.use_deterministic_algorithms(True)
    for name in MODELS:
        build(name, out_dir, tosa_opt)


if __name__ == "__main__":
    main()
