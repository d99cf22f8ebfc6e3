"""Float32 twins of the MLPerf Tiny models: the same architectures and weights, in float.

Each int8 model of test/models/mlperf-tiny becomes a float32 .tflite: every quantized tensor
becomes FLOAT32 with its quantization dropped, and every constant is dequantized,
scale * (q - zero_point), per channel where the tensor is per-channel (weights along their
quantized dimension, biases with the input scale times each channel's weight scale, as TFLite
stores them). Operators, their options and the graph are unchanged. The five reference inputs
are dequantized the same way, and TensorFlow Lite Micro's float kernels give the outputs.

Writes <model>/model.tflite, <model>/model.mlirbc (TOSA bytecode from tosa-converter-for-tflite, which
scripts/bootstrap installs in .venv) and <model>/ref/{input,output}_<i>.npy, i = 0..4.

Run from the repository root, in a venv with tflite-micro, numpy and flatbuffers:
    python3 -m venv .venv-models && .venv-models/bin/pip install tflite-micro numpy flatbuffers
    .venv-models/bin/python test/models/float/gen.py
Nothing at test time needs Python: the outputs are committed.
"""
import os
import subprocess

import flatbuffers
import numpy as np
from tflite_micro.python.tflite_micro import runtime

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", ".."))
mlperf = os.path.join(root, "test", "models", "mlperf-tiny")
sfb = runtime.schema_fb

NUMPY = {sfb.TensorType.INT8: np.int8, sfb.TensorType.INT16: np.int16, sfb.TensorType.INT32: np.int32,
         sfb.TensorType.INT64: np.int64, sfb.TensorType.UINT8: np.uint8}


def dequantize(values, quantization, axis):
    """scale * (q - zero_point), per channel along `axis` when there are several scales."""
    scale = np.asarray(quantization.scale, dtype=np.float64)
    zero = np.asarray(quantization.zeroPoint, dtype=np.float64)
    if scale.size > 1:
        shape = [1] * values.ndim
        shape[axis] = scale.size
        scale, zero = scale.reshape(shape), zero.reshape(shape)
    return (scale * (values.astype(np.float64) - zero)).astype(np.float32)


def float_model(path):
    with open(path, "rb") as f:
        model = sfb.ModelT.InitFromObj(sfb.Model.GetRootAsModel(f.read(), 0))
    for graph in model.subgraphs:
        for tensor in graph.tensors:
            q = tensor.quantization
            if tensor.type not in NUMPY or q is None or q.scale is None or len(q.scale) == 0:
                continue
            buffer = model.buffers[tensor.buffer]
            if buffer.data is not None and len(buffer.data) > 0:
                shape = list(tensor.shape) if tensor.shape is not None else []
                values = np.frombuffer(bytes(bytearray(buffer.data)), dtype=NUMPY[tensor.type]).reshape(shape)
                buffer.data = dequantize(values, q, q.quantizedDimension).tobytes()
            tensor.type = sfb.TensorType.FLOAT32
            tensor.quantization = None
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def input_quantization(path):
    """The scale and zero point of the int8 model's first input."""
    with open(path, "rb") as f:
        model = sfb.Model.GetRootAsModel(f.read(), 0)
    graph = model.Subgraphs(0)
    q = graph.Tensors(graph.Inputs(0)).Quantization()
    return q.Scale(0), q.ZeroPoint(0)


def main():
    converter = os.path.join(root, ".venv", "bin", "tosa-converter-for-tflite")
    for name in ["kws", "vww", "ic", "ad"]:
        source = os.path.join(mlperf, name, "model.tflite")
        out = os.path.join(here, name)
        os.makedirs(os.path.join(out, "ref"), exist_ok=True)
        path = os.path.join(out, "model.tflite")
        with open(path, "wb") as f:
            f.write(float_model(source))
        scale, zero = input_quantization(source)
        interpreter = runtime.Interpreter.from_file(path, arena_size=8 << 20)
        for i in range(5):
            q = np.load(os.path.join(mlperf, name, "ref", f"input_{i}.npy"))
            x = (scale * (q.astype(np.float64) - zero)).astype(np.float32)
            np.save(os.path.join(out, "ref", f"input_{i}.npy"), x)
            interpreter.set_input(x, 0)
            interpreter.invoke()
            np.save(os.path.join(out, "ref", f"output_{i}.npy"), interpreter.get_output(0).copy())
        subprocess.run([converter, path, "--bytecode", "-o", os.path.join(out, "model.mlirbc")], check=True)
        print(name, "done")


if __name__ == "__main__":
    main()
