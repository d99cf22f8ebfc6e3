#!/bin/sh
# conv-16x8: the int16x8 conv net of test/models/lstm-16x8 (int16 activations, int8 weights,
# int64 biases: conv 3x3 + ReLU, depthwise 3x3 + ReLU6, add, average pooling, fully connected),
# as TOSA text from tosa-converter-for-tflite (scripts/bootstrap installs it into .venv), with
# its five inputs and TensorFlow Lite Micro's outputs copied beside it, so that the firmware tests
# compile it like the MLPerf Tiny models. Run from the repository root:
#     sh test/models/conv-16x8/gen.sh
set -eu
here=test/models/conv-16x8
source=test/models/lstm-16x8
.venv/bin/tosa-converter-for-tflite "$source/conv_16x8.tflite" --text -o "$here/model.mlir"
for i in 0 1 2 3 4; do
  install -m 644 "$source/ref/conv_16x8/input_$i.npy" "$source/ref/conv_16x8/output_$i.npy" "$here/ref/"
done
