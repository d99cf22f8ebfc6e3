"""A trained LSTM: TensorFlow Lite Micro's MNIST example (tensorflow/lite/micro/examples/mnist_lstm
in the tflite-micro repository, Apache-2.0), which reads a 28x28 digit row by row: LSTM(20) over
28 steps of 28 pixels, then a fully connected layer and a softmax. model_int8.tflite and
model_f32.tflite are that example's trained_lstm_int8.tflite and trained_lstm.tflite, copied.

The five inputs are the example's samples/sample{0..4}.png (digits, 8-bit grayscale), scaled to
[0, 1] as its evaluate.py does (quantized with the input's scale and zero point for int8). The
outputs are TFLite Micro's, the five inputs run one after another in one interpreter (the LSTM's
state persists between inferences, as in umac's code). model.mlir in int8/ and f32/ is each
model as umac imports it (`umac-opt --allow-unregistered-dialect MODEL.tflite`).

Run from the repository root, with the tflite-micro checkout's example directory and the
bench venv (numpy, tflite-micro):
    .venv-bench/bin/python test/models/lstm/mnist/gen.py PATH/TO/mnist_lstm/samples
"""
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
from tflite_micro.python.tflite_micro import runtime

HERE = os.path.dirname(os.path.abspath(__file__))


def read_png(path):
    """An 8-bit grayscale, non-interlaced PNG as a 2-D uint8 array (zlib and the five filters)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert (depth, color, interlace) == (8, 0, 0), header
    raw = zlib.decompress(idat)
    rows, previous = [], bytearray(width)
    for y in range(height):
        line = raw[y * (width + 1):(y + 1) * (width + 1)]
        kind, row = line[0], bytearray(line[1:])
        for x in range(width):
            left = row[x - 1] if x else 0
            up, corner = previous[x], previous[x - 1] if x else 0
            if kind == 1:
                row[x] = (row[x] + left) & 255
            elif kind == 2:
                row[x] = (row[x] + up) & 255
            elif kind == 3:
                row[x] = (row[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                row[x] = (row[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(row))
        previous = row
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(height, width)


def main():
    samples = sys.argv[1]
    images = [read_png(os.path.join(samples, f"sample{i}.png")).astype(np.float32) / 255.0 for i in range(5)]
    for kind in ["int8", "f32"]:
        model = os.path.join(HERE, f"model_{kind}.tflite")
        out = os.path.join(HERE, kind, "ref")
        os.makedirs(out, exist_ok=True)
        interpreter = runtime.Interpreter.from_file(model, arena_size=1 << 20)
        details = interpreter.get_input_details(0)
        for i, image in enumerate(images):
            x = image.reshape(1, 28, 28)
            if kind == "int8":
                scale, zero_point = details["quantization_parameters"]["scales"][0], \
                    details["quantization_parameters"]["zero_points"][0]
                x = np.clip(np.round(x / scale) + zero_point, -128, 127).astype(np.int8)
            np.save(os.path.join(out, f"input_{i}.npy"), x)
            interpreter.set_input(x, 0)
            interpreter.invoke()
            y = interpreter.get_output(0).copy()
            np.save(os.path.join(out, f"output_{i}.npy"), y)
            print(kind, i, "digit", int(np.argmax(y)))
        umac_opt = os.path.join(HERE, "../../../../target/release/umac-opt")
        subprocess.run([umac_opt, "--allow-unregistered-dialect", model, "-o",
                        os.path.join(HERE, kind, "model.mlir")], check=True)


if __name__ == "__main__":
    main()
