"""Builds kws-mean: MLPerf Tiny's KWS with its AVERAGE_POOL_2D (25x5 -> 1x1 over 64 channels)
replaced by MEAN over the rows and columns (keep_dims), as a Keras GlobalAveragePooling2D or
tf.reduce_mean exports it. The rest of the model (convolutions, reshape, fully connected,
softmax) is KWS's, weights included. Writes model.tflite, model.mlir (TOSA from
tosa-converter-for-tflite, batch 1) and ref/: KWS's five reference inputs, TFLite Micro's outputs
for them and its arena report (TFLite Micro's reference kernels).

Run with the bench venv (tflite-micro; `scripts/bench firmware` creates it) and the converter in
.venv (`scripts/bootstrap`):
    .venv-bench/bin/python test/models/kws-mean/gen.py
Nothing at test time needs Python: the outputs are committed.
"""
import json
import os
import subprocess
import sys

import numpy as np
import flatbuffers
from tflite_micro.python.tflite_micro import runtime

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", ".."))
kws = os.path.join(root, "test", "models", "mlperf-tiny", "kws")
sfb = runtime.schema_fb


def mean_model():
    with open(os.path.join(kws, "model.tflite"), "rb") as f:
        model = sfb.ModelT.InitFromObj(sfb.Model.GetRootAsModel(f.read(), 0))
    graph = model.subgraphs[0]
    # Older files name builtin operators in the deprecated (int8) field only.
    code_of = lambda c: max(c.builtinCode, c.deprecatedBuiltinCode)
    pools = [i for i, op in enumerate(graph.operators)
             if code_of(model.operatorCodes[op.opcodeIndex]) == sfb.BuiltinOperator.AVERAGE_POOL_2D]
    assert len(pools) == 1, pools
    op = graph.operators[pools[0]]
    # The axes [1, 2] as a constant int32 tensor.
    axes = sfb.BufferT()
    axes.data = np.array([1, 2], dtype=np.int32).view(np.uint8)
    model.buffers.append(axes)
    tensor = sfb.TensorT()
    tensor.shape = [2]
    tensor.type = sfb.TensorType.INT32
    tensor.buffer = len(model.buffers) - 1
    tensor.name = b"mean_axes"
    graph.tensors.append(tensor)
    code = sfb.OperatorCodeT()
    code.builtinCode = sfb.BuiltinOperator.MEAN
    code.deprecatedBuiltinCode = sfb.BuiltinOperator.MEAN
    code.version = 2
    model.operatorCodes.append(code)
    op.opcodeIndex = len(model.operatorCodes) - 1
    op.inputs = [op.inputs[0], len(graph.tensors) - 1]
    op.builtinOptionsType = sfb.BuiltinOptions.ReducerOptions
    op.builtinOptions = sfb.ReducerOptionsT()
    op.builtinOptions.keepDims = True
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def main():
    path = os.path.join(here, "model.tflite")
    with open(path, "wb") as f:
        f.write(mean_model())
    os.makedirs(os.path.join(here, "ref"), exist_ok=True)
    interpreter = runtime.Interpreter.from_file(path, arena_size=1 << 20)
    for i in range(5):
        x = np.load(os.path.join(kws, "ref", f"input_{i}.npy"))
        np.save(os.path.join(here, "ref", f"input_{i}.npy"), x)
        interpreter.set_input(x, 0)
        interpreter.invoke()
        np.save(os.path.join(here, "ref", f"output_{i}.npy"), interpreter.get_output(0).copy())
    # The arena report (printed by the C++ side): the head is the activation arena (tensors and
    # scratch buffers), the total adds what the interpreter keeps for itself.
    report = subprocess.run(
        [sys.executable, "-c",
         "import sys\nfrom tflite_micro.python.tflite_micro import runtime\n"
         "runtime.Interpreter.from_file(sys.argv[1], arena_size=1 << 20).print_allocations()", path],
        capture_output=True, text=True, check=True)
    arena = {}
    for line in (report.stdout + report.stderr).splitlines():
        for key, name in [("Arena allocation total", "total"), ("Arena allocation head", "head")]:
            if key in line:
                arena[name] = int(line.split()[-2])
    assert set(arena) == {"total", "head"}, report.stdout + report.stderr
    with open(os.path.join(here, "ref", "tflm.json"), "w") as f:
        json.dump({"arena_head_bytes": arena["head"], "arena_total_bytes": arena["total"]}, f, indent=1)
        f.write("\n")
    converter = os.path.join(root, ".venv", "bin", "tosa-converter-for-tflite")
    subprocess.run([converter, path, "--text", "-o", os.path.join(here, "model.mlir")], check=True)
    print("kws-mean:", arena)


if __name__ == "__main__":
    main()
