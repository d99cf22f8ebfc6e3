"""LSTM variants beyond test/models/lstm-16x8's (see gen.sh there): int8 (int16 cell)
models with random (seeded) weights, made as that directory's gen.py makes its LSTMs (Keras 2 via
tf-keras, whose LSTM layer the TFLite converter fuses into UNIDIRECTIONAL_SEQUENCE_LSTM).

  time_major_int8   7x2x5 (time, batch, features) -> LSTM(6, time_major, return_sequences) -> Dense(3)
  sequences_int8    1x5x3 -> LSTM(6, return_sequences) -> Dense(2) on every step
  batch2_int8       2x9x4 -> LSTM(5) -> Dense(3): two sequences in one batch

For each model NAME: NAME/model.tflite, NAME/model.mlir (as umac imports it: the converter's TOSA
with the LSTM's quantization and options, printed by `umac-opt --allow-unregistered-dialect`),
NAME/ref/input_<i>.npy and output_<i>.npy (i = 0..4): TFLite Micro's outputs, the five inputs run
one after another in one interpreter (the LSTM's state persists between them). Run from the
repository root after `cargo build --release`, with a venv holding tensorflow-cpu 2.21, tf-keras,
tflite-micro and numpy, and the converter in .venv (scripts/bootstrap):
    python test/models/lstm/gen.py
Nothing at test time needs Python: the outputs are committed.
"""
import os
import subprocess

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402
from tflite_micro.python.tflite_micro import runtime  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "../../..")


def time_major():
    x = keras.Input((2, 5), batch_size=7)
    h = keras.layers.LSTM(6, time_major=True, return_sequences=True)(x)
    return keras.Model(x, keras.layers.Dense(3)(h))


def sequences():
    x = keras.Input((5, 3), batch_size=1)
    h = keras.layers.LSTM(6, return_sequences=True)(x)
    return keras.Model(x, keras.layers.Dense(2)(h))


def batch2():
    x = keras.Input((9, 4), batch_size=2)
    return keras.Model(x, keras.layers.Dense(3)(keras.layers.LSTM(5)(x)))


def convert(model):
    shape = tuple(model.inputs[0].shape)
    rng = np.random.default_rng(7)
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = lambda: ([rng.standard_normal(shape).astype(np.float32)] for _ in range(32))
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.int8
    conv.inference_output_type = tf.int8
    return conv.convert()


def main():
    keras.utils.set_random_seed(4321)
    for name, build in [("time_major_int8", time_major), ("sequences_int8", sequences), ("batch2_int8", batch2)]:
        d = os.path.join(HERE, name)
        os.makedirs(os.path.join(d, "ref"), exist_ok=True)
        path = os.path.join(d, "model.tflite")
        open(path, "wb").write(convert(build()))
        interpreter = runtime.Interpreter.from_file(path, arena_size=1 << 20)
        details = interpreter.get_input_details(0)
        scale = details["quantization_parameters"]["scales"][0]
        zero_point = details["quantization_parameters"]["zero_points"][0]
        rng = np.random.default_rng(sum(map(ord, name)))
        for i in range(5):
            x = rng.standard_normal(details["shape"]).astype(np.float32)
            x = np.clip(np.round(x / scale) + zero_point, -128, 127).astype(np.int8)
            np.save(os.path.join(d, "ref", f"input_{i}.npy"), x)
            interpreter.set_input(x, 0)
            interpreter.invoke()
            np.save(os.path.join(d, "ref", f"output_{i}.npy"), interpreter.get_output(0).copy())
        subprocess.run([os.path.join(ROOT, "target/release/umac-opt"), "--allow-unregistered-dialect", path, "-o",
                        os.path.join(d, "model.mlir")], check=True)
        print(name, details["shape"])


if __name__ == "__main__":
    main()
