"""Small int16x8 models (int16 activations, int8 weights, int64 biases: TFLite's 16x8
quantization) that exercise the operators audio models use beyond test/models/lstm-16x8's
conv net, with TensorFlow Lite Micro's outputs. Weights are random (seeded), not trained.

  elementwise   1x8x8x4 -> Conv 3x3 (8) -> DepthwiseConv 3x3 -> Subtract, Multiply, LeakyReLU,
                Add -> Dense(6)
  spatial       1x8x8x4 -> ZeroPadding 1 -> Conv 3x3 (6) -> slice [1:7, 1:7] -> TransposeConv 3x3
                stride 2 (4) -> Dense(5)
  softmax       1x16 -> Dense(10) -> Softmax
  quantize      float32 1x16 -> QUANTIZE -> Dense(8) -> ReLU -> Dense(4) -> DEQUANTIZE -> float32
  pad           1x6x6x4 -> ZeroPadding ((1, 2), (0, 1)) -> Multiply by itself -> Dense(5) (a pad the
                converter cannot fold into a convolution)

For each model NAME: NAME.tflite, NAME/model.mlir (TOSA text from tosa-converter-for-tflite, as the
firmware tests compile it), NAME/ref/input_<i>.npy and output_<i>.npy (i = 0..4, TFLite Micro)
and NAME/OPS.txt. Run from the repository root with a venv holding tensorflow-cpu 2.21, tf-keras,
tflite-micro and numpy, and the converter in .venv (scripts/bootstrap):
    python test/models/ops-16x8/gen.py
Nothing at test time needs Python: the outputs are committed.
"""
import os
import subprocess
import sys

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
keras.utils.set_random_seed(4321)


def elementwise():
    x = keras.Input((8, 8, 4), batch_size=1)
    a = keras.layers.Conv2D(8, 3, padding="same")(x)
    b = keras.layers.DepthwiseConv2D(3, padding="same")(a)
    s = keras.layers.Subtract()([a, b])
    m = keras.layers.Multiply()([a, b])
    l = keras.layers.LeakyReLU(0.2)(s)
    c = keras.layers.Add()([l, m])
    return keras.Model(x, keras.layers.Dense(6)(keras.layers.Flatten()(c)))


def spatial():
    x = keras.Input((8, 8, 4), batch_size=1)
    p = keras.layers.ZeroPadding2D(1)(x)
    c = keras.layers.Conv2D(6, 3, padding="valid", activation="relu")(p)
    s = keras.layers.Lambda(lambda t: t[:, 1:7, 1:7, :])(c)
    t = keras.layers.Conv2DTranspose(4, 3, strides=2, padding="same")(s)
    return keras.Model(x, keras.layers.Dense(5)(keras.layers.Flatten()(t)))


def softmax():
    x = keras.Input((16,), batch_size=1)
    return keras.Model(x, keras.layers.Softmax()(keras.layers.Dense(10)(x)))


def pad():
    x = keras.Input((6, 6, 4), batch_size=1)
    p = keras.layers.ZeroPadding2D(((1, 2), (0, 1)))(x)
    m = keras.layers.Multiply()([p, p])
    return keras.Model(x, keras.layers.Dense(5)(keras.layers.Flatten()(m)))


def quantize():
    x = keras.Input((16,), batch_size=1)
    h = keras.layers.Dense(8, activation="relu")(x)
    return keras.Model(x, keras.layers.Dense(4)(h))


def convert(model, shape, float_io=False):
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    rng = np.random.default_rng(7)

    def rep():
        for _ in range(32):
            yield [rng.standard_normal((1,) + shape).astype(np.float32)]

    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = rep
    conv.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
    if not float_io:
        conv.inference_input_type = tf.int16
        conv.inference_output_type = tf.int16
    return conv.convert()


TFLM = r"""
import sys, numpy as np
from tflite_micro.python.tflite_micro import runtime
it = runtime.Interpreter.from_file(sys.argv[1], arena_size=1 << 20)
d = sys.argv[2]
for i in range(5):
    it.set_input(np.load(f"{d}/input_{i}.npy"), 0)
    it.invoke()
    np.save(f"{d}/output_{i}.npy", it.get_output(0).copy())
"""


def main():
    converter = os.path.join(ROOT, ".venv", "bin", "tosa-converter-for-tflite")
    for build, shape in [(elementwise, (8, 8, 4)), (spatial, (8, 8, 4)), (softmax, (16,)), (quantize, (16,)),
                         (pad, (6, 6, 4))]:
        name = build.__name__
        out = os.path.join(HERE, name)
        ref = os.path.join(out, "ref")
        os.makedirs(ref, exist_ok=True)
        path = os.path.join(HERE, name + ".tflite")
        with open(path, "wb") as f:
            f.write(convert(build(), shape, float_io=name == "quantize"))
        interp = tf.lite.Interpreter(model_path=path)
        ops = sorted({o["op_name"] for o in interp._get_ops_details()})
        with open(os.path.join(out, "OPS.txt"), "w") as f:
            f.write("\n".join(ops) + "\n")
        det = interp.get_input_details()[0]
        scale, zp = det["quantization"]
        rng = np.random.default_rng(sum(map(ord, name)))
        for i in range(5):
            x = rng.standard_normal(det["shape"]).astype(np.float32)
            if det["dtype"] != np.float32:
                x = np.clip(np.round(x / scale) + zp, -32768, 32767).astype(np.int16)
            np.save(os.path.join(ref, f"input_{i}.npy"), x)
        r = subprocess.run([sys.executable, "-c", TFLM, path, ref], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-2000:]
        subprocess.run([converter, path, "--text", "-o", os.path.join(out, "model.mlir")], check=True)
        print(name, ops)


if __name__ == "__main__":
    main()
