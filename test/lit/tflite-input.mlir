// A .tflite input is read into TOSA before the pipeline runs (as `umac compile` and `umac run`
// read it), each op located at the TFLite operator it came from: its index in the subgraph,
// its TFLite name and its output tensor, on line 0 of the model with the index as the column.
// test/models/ops-16x8/pad.tflite: PAD, MUL, RESHAPE, FULLY_CONNECTED, int16 activations.
// RUN: umac-opt %umac_root/test/models/ops-16x8/pad.tflite --mlir-print-debuginfo | FileCheck %s
// A pipeline runs on it as on any TOSA module.
// RUN: umac-opt %umac_root/test/models/ops-16x8/pad.tflite --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named))' | FileCheck %s --check-prefix=PIPE
// An input that is not a .tflite flatbuffer is an error naming the file, exit code 1.
// RUN: not umac-opt %S/Inputs/not-a-model.tflite 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: #[[FILE0:loc[0-9]*]] = loc("{{.*}}pad.tflite":0:0)
// CHECK: func.func @main(%{{.*}}: tensor<1x6x6x4xi16> loc("{{.*}}pad.tflite":0:0))
// CHECK: tosa.pad {{.*}} loc(#[[PAD:loc[0-9]*]])
// CHECK: tosa.mul {{.*}} loc(#[[MUL:loc[0-9]*]])
// CHECK: tosa.conv2d {{.*}} loc(#[[FC:loc[0-9]*]])
// CHECK-DAG: #[[FILE1:loc[0-9]*]] = loc("{{.*}}pad.tflite":0:1)
// CHECK-DAG: #[[FILE3:loc[0-9]*]] = loc("{{.*}}pad.tflite":0:3)
// CHECK-DAG: #[[PAD]] = loc("operator #0 (PAD, output 'model_4/zero_padding2d_1/Pad')"(#[[FILE0]]))
// CHECK-DAG: #[[MUL]] = loc("operator #1 (MUL, output 'model_4/multiply_1/mul')"(#[[FILE1]]))
// CHECK-DAG: #[[FC]] = loc("operator #3 (FULLY_CONNECTED, output 'StatefulPartitionedCall:0')"(#[[FILE3]]))
// The model's path appears nowhere else (no scratch file's).
// CHECK-NOT: umac-opt-

// PIPE: linalg.conv_2d_nhwc_fhwc
// BAD: umac-opt: error: {{.*}}not-a-model.tflite: not a .tflite file (its flatbuffer identifier is not TFL3)
