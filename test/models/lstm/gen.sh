#!/bin/sh
# lstm: the LSTM models of test/models/lstm-16x8 (int8 with an int16 cell, one LSTM and two
# stacked, and float32) as umac imports them: tosa-converter-for-tflite's TOSA (scripts/bootstrap
# installs it into .venv) with the LSTM's quantization and options read from the .tflite file
# (`umac.lstm`), printed by umac-opt. Their five inputs and TensorFlow Lite Micro's outputs are
# copied beside them. TFLite Micro ran the five inputs one after another in one interpreter, so
# each output depends on the inputs before it (the LSTM's state persists, as in umac's code).
# Run from the repository root after `cargo build --release`:
#     sh test/models/lstm/gen.sh
set -eu
source=test/models/lstm-16x8
for model in lstm_small_int8 lstm_stack_int8 lstm_small_f32; do
  here=test/models/lstm/$model
  mkdir -p "$here/ref"
  target/release/umac-opt --allow-unregistered-dialect "$source/$model.tflite" -o "$here/model.mlir"
  for i in 0 1 2 3 4; do
    install -m 644 "$source/ref/$model/input_$i.npy" "$source/ref/$model/output_$i.npy" "$here/ref/"
  done
done
