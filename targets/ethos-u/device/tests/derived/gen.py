"""Models derived from test/models/tflite-ops for what no case there makes Vela emit, compiled by
Vela 5.2.0 for each configuration, with LiteRT's reference kernels' outputs.

- `lrelu16/`: leaky_relu_int16_0 (alpha 0.2) with its output quantized as its input. Vela turns an
  int16 LEAKY_RELU whose scales are equal into the NPU's LRELU elementwise mode (the sweep's, with
  scales that differ, become a MUL and a MAX). The output's scale is the model's one float32 equal
  to it, overwritten with the input's.

Each folder holds `source.tflite`, `<configuration>.tflite` (Vela's), `input_<k>.npy` (random,
seeded, the full int16 range) and `output_<k>.npy` (ai-edge-litert 2.3.0's Interpreter with
OpResolverType.BUILTIN_REF; TFLite Micro's int16 LEAKY_RELU is the same reference function).

Usage (a Python with ai-edge-litert==2.3.0 and numpy; the project venv's Vela):
python gen.py
"""

import os
import subprocess
import tempfile

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../../../../.."))
VELA = os.path.join(ROOT, ".venv/bin/vela")
CONFIGURATIONS = ["ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256", "ethos-u65-256", "ethos-u65-512"]


def equal_scales(source):
    """The model at `source` with its output's scale overwritten with its input's."""
    data = bytearray(open(source, "rb").read())
    interpreter = Interpreter(model_path=source)
    (scale_in, _), (scale_out, _) = (d["quantization"] for d in interpreter.get_tensor_details()[:2])
    old, new = np.float32(scale_out).tobytes(), np.float32(scale_in).tobytes()
    assert data.count(old) == 1, "the output's scale is not one float32 of the file"
    at = data.index(old)
    data[at : at + 4] = new
    return bytes(data)


def main():
    out = os.path.join(HERE, "lrelu16")
    os.makedirs(out, exist_ok=True)
    model = os.path.join(out, "source.tflite")
    open(model, "wb").write(equal_scales(os.path.join(ROOT, "test/models/tflite-ops/leaky_relu_int16_0.tflite")))
    interpreter = Interpreter(model_path=model, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    (detail_in,), (detail_out,) = interpreter.get_input_details(), interpreter.get_output_details()
    assert detail_in["quantization"] == detail_out["quantization"]
    rng = np.random.default_rng(2026)
    for k in range(3):
        x = rng.integers(-32768, 32768, size=detail_in["shape"], dtype=np.int16)
        interpreter.set_tensor(detail_in["index"], x)
        interpreter.invoke()
        np.save(os.path.join(out, f"input_{k}.npy"), x)
        np.save(os.path.join(out, f"output_{k}.npy"), interpreter.get_tensor(detail_out["index"]))
    with tempfile.TemporaryDirectory() as work:
        for configuration in CONFIGURATIONS:
            subprocess.run([VELA, "--accelerator-config", configuration, "--output-dir", work, model],
                           check=True, stdout=subprocess.DEVNULL)
            os.replace(os.path.join(work, "source_vela.tflite"), os.path.join(out, f"{configuration}.tflite"))


if __name__ == "__main__":
    main()
