// A TOSA flatbuffer (.tosa, here a PyTorch model as ExecuTorch's Arm backend writes it) is read
// into TOSA MLIR before the pipeline runs (as `umac compile` and `umac run` read it), each op
// located at its op in the flatbuffer: its index in the block, its name and its output, on line 0
// of the file with the index as the column.
// test/models/pytorch/mlp: RESHAPE, two 1x1 CONV2D with per-channel RESCALE, RESHAPE.
// RUN: umac-opt %umac_root/test/models/pytorch/mlp/model.tosa --mlir-print-debuginfo | FileCheck %s
// A pipeline runs on it as on any TOSA module.
// RUN: umac-opt %umac_root/test/models/pytorch/mlp/model.tosa --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named))' | FileCheck %s --check-prefix=PIPE
// A file that is no TOSA flatbuffer is an error naming the file, exit code 1.
// RUN: not umac-opt %S/Inputs/not-a-model.tosa 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: func.func @main(%{{.*}}: tensor<1x32xi8> loc("{{.*}}model.tosa":0:0)) -> tensor<1x10xi8>
// CHECK: tosa.reshape {{.*}} loc(#[[RESHAPE:loc[0-9]*]])
// CHECK: tosa.conv2d {{.*}} {acc_type = i32, {{.*}}} : (tensor<1x1x1x32xi8>, tensor<64x1x1x32xi8>, tensor<64xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x64xi32> loc(#[[CONV:loc[0-9]*]])
// CHECK: tosa.rescale {{.*}} rounding_mode = SINGLE_ROUND
// CHECK-DAG: #[[RESHAPE]] = loc("op #{{[0-9]+}} (RESHAPE, output '{{.*}}')"(#{{loc[0-9]*}}))
// CHECK-DAG: #[[CONV]] = loc("op #{{[0-9]+}} (CONV2D, output '{{.*}}')"(#{{loc[0-9]*}}))

// PIPE: linalg.conv_2d_nhwc_fhwc
// BAD: umac-opt: error: {{.*}}not-a-model.tosa: not a .tosa file (its flatbuffer identifier is not TOSA)
