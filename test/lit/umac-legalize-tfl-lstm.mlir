// RUN: umac-opt %s --allow-unregistered-dialect --split-input-file --pass-pipeline='builtin.module(umac-legalize-tfl-lstm)' | FileCheck %s

// An int8 LSTM (batch 1, 3 steps, 2 features, 4 cells) with hand-checkable scales: input 0.5,
// weights 2^-10, hidden state 0.25 (zero point -5), cell 2^-14. The state becomes two mutable
// globals holding TFLite's initial values (the hidden state's zero point, a zero cell); the time
// loop carries them and the output, and stores the state back after the last step.
// CHECK-DAG: ml_program.global private mutable @umac_lstm0_cell(dense<0> : tensor<1x1x1x4xi16>)
// CHECK-DAG: ml_program.global private mutable @umac_lstm0_hidden(dense<-5> : tensor<1x1x1x4xi8>)
// CHECK-LABEL: func.func @int8(
// CHECK-NOT: tfl.
// CHECK: %[[H0:[a-z0-9_]+]] = ml_program.global_load @umac_lstm0_hidden
// CHECK: %[[C0:[a-z0-9_]+]] = ml_program.global_load @umac_lstm0_cell
// CHECK: %[[TABLE:[a-z0-9_]+]] = arith.constant dense<"0x0080000
// CHECK: %[[LOOP:[a-z0-9_]+]]:3 = scf.for %[[T:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:[a-z0-9_]+]] = %[[H0]], %[[C:[a-z0-9_]+]] = %[[C0]], %[[OUT:[a-z0-9_]+]] = %{{.*}})
// CHECK: tensor.extract_slice %{{.*}}[0, %[[T]], 0] [1, 1, 2] [1, 1, 1]
// The forget gate first: the input's fully connected layer with its bias, the recurrent one over
// the hidden state (zero point -5), each rescaled to int16 at 2^-12: 0.5 * 2^-10 / 2^-12 = 2
// (2^30 at shift 29) and 0.25 * 2^-10 / 2^-12 = 1 (2^30 at shift 30), then a saturating sum.
// CHECK: tosa.conv2d
// CHECK: tosa.conv2d %[[H]]
// CHECK: dense<1073741824> : tensor<1xi32>
// CHECK-NEXT: dense<29> : tensor<1xi8>
// CHECK: dense<1073741824> : tensor<1xi32>
// CHECK-NEXT: dense<30> : tensor<1xi8>
// CHECK: tosa.clamp %{{.*}} {max_val = 32767 : i32, min_val = -32768 : i32}
// TFLite's sigmoid: 3x, 9 fractional bits, the table.
// CHECK: linalg.generic
// CHECK: arith.constant 3 : i32
// CHECK: tensor.extract %[[TABLE]]
// CHECK: arith.constant 33554432 : i32
// The cell: f * c at 2^-15 * 2^-14 / 2^-14 = 2^-15 (shift 45), i * g at 2^-30 / 2^-14 = 2^-16
// (shift 46), summed, clipped to 10 / 2^-14, saturated to 32767.
// CHECK: tosa.mul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x1x1x4xi32>
// CHECK: dense<45> : tensor<1xi8>
// CHECK: dense<46> : tensor<1xi8>
// CHECK: tosa.clamp %{{.*}} {max_val = 32767 : i16, min_val = -32767 : i16}
// The hidden state: tanh of the cell (2^-14: 3x rounded right by 2) times the output gate,
// 2^-30 / 0.25 = 2^-28 (shift 58) to int8 at zero point -5.
// CHECK: arith.constant 2 : i32
// CHECK: arith.shrsi
// CHECK: dense<58> : tensor<1xi8>
// CHECK: dense<-5> : tensor<1xi8>
// CHECK: %[[NEWH:[a-z0-9_]+]] = linalg.copy ins(%{{.*}} : tensor<1x1x1x4xi8>) outs(%[[H]] : tensor<1x1x1x4xi8>)
// CHECK: %[[NEWC:[a-z0-9_]+]] = linalg.copy ins(%{{.*}} : tensor<1x1x1x4xi16>) outs(%[[C]] : tensor<1x1x1x4xi16>)
// CHECK: %[[STEP:[a-z0-9_]+]] = tensor.insert_slice %{{.*}} into %[[OUT]][0, %[[T]], 0] [1, 1, 4] [1, 1, 1]
// CHECK: scf.yield %[[NEWH]], %[[NEWC]], %[[STEP]]
// CHECK: ml_program.global_store @umac_lstm0_hidden = %[[LOOP]]#0
// CHECK: ml_program.global_store @umac_lstm0_cell = %[[LOOP]]#1
// CHECK: return %[[LOOP]]#2
func.func @int8(%x: tensor<1x3x2xi8>) -> tensor<1x3x4xi8> {
  %none = "tfl.no_value"() {value} : () -> none
  %w1 = "tosa.const"() <{values = dense<1> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w2 = "tosa.const"() <{values = dense<2> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w3 = "tosa.const"() <{values = dense<3> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w4 = "tosa.const"() <{values = dense<4> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w5 = "tosa.const"() <{values = dense<5> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %w6 = "tosa.const"() <{values = dense<6> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %w7 = "tosa.const"() <{values = dense<7> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %w8 = "tosa.const"() <{values = dense<8> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %b12 = "tosa.const"() <{values = dense<1200> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b13 = "tosa.const"() <{values = dense<1300> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b14 = "tosa.const"() <{values = dense<1400> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b15 = "tosa.const"() <{values = dense<1500> : tensor<4xi32>}> : () -> tensor<4xi32>
  %h0 = "tosa.const"() <{values = dense<0> : tensor<1x4xi8>}> : () -> tensor<1x4xi8>
  %c0 = "tosa.const"() <{values = dense<0> : tensor<1x4xi16>}> : () -> tensor<1x4xi16>
  %y = "tfl.unidirectional_sequence_lstm"(%x, %w1, %w2, %w3, %w4, %w5, %w6, %w7, %w8, %none, %none, %none, %b12, %b13, %b14, %b15, %none, %none, %h0, %c0, %none, %none, %none, %none) {umac.lstm = {cell_activation = "tanh", cell_clip = 10.0 : f32, time_major = false, input_scale = 0.5 : f32, input_zero_point = 3 : i64, weight_scales = array<f32: 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4>, hidden_scale = 0.25 : f32, hidden_zero_point = -5 : i64, cell_scale = 6.1035156e-5 : f32}} : (tensor<1x3x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi8>, none, none, none, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, none, none, tensor<1x4xi8>, tensor<1x4xi16>, none, none, none, none) -> tensor<1x3x4xi8>
  return %y : tensor<1x3x4xi8>
}

// -----

// A float LSTM, time-major (3 steps of a batch of 2): each step reads x[t] and writes out[t];
// TOSA's sigmoid and tanh; no cell clip.
// CHECK-DAG: ml_program.global private mutable @umac_lstm0_hidden(dense<0.000000e+00> : tensor<2x1x1x4xf32>)
// CHECK-LABEL: func.func @float_time_major(
// CHECK: scf.for %[[T:[a-z0-9_]+]] =
// CHECK: tensor.extract_slice %{{.*}}[%[[T]], 0, 0] [1, 2, 2] [1, 1, 1] : tensor<3x2x2xf32> to tensor<1x2x2xf32>
// CHECK: tosa.sigmoid
// CHECK: tosa.sigmoid
// CHECK: tosa.tanh
// CHECK-NOT: tosa.clamp
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[T]], 0, 0] [1, 2, 4] [1, 1, 1] : tensor<1x2x4xf32> into tensor<3x2x4xf32>
func.func @float_time_major(%x: tensor<3x2x2xf32>) -> tensor<3x2x4xf32> {
  %none = "tfl.no_value"() {value} : () -> none
  %w1 = "tosa.const"() <{values = dense<0.1> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %w2 = "tosa.const"() <{values = dense<0.2> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %w3 = "tosa.const"() <{values = dense<0.3> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %w4 = "tosa.const"() <{values = dense<0.4> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %w5 = "tosa.const"() <{values = dense<0.5> : tensor<4x4xf32>}> : () -> tensor<4x4xf32>
  %w6 = "tosa.const"() <{values = dense<0.6> : tensor<4x4xf32>}> : () -> tensor<4x4xf32>
  %w7 = "tosa.const"() <{values = dense<0.7> : tensor<4x4xf32>}> : () -> tensor<4x4xf32>
  %w8 = "tosa.const"() <{values = dense<0.8> : tensor<4x4xf32>}> : () -> tensor<4x4xf32>
  %b12 = "tosa.const"() <{values = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %b13 = "tosa.const"() <{values = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %b14 = "tosa.const"() <{values = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %b15 = "tosa.const"() <{values = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %h0 = "tosa.const"() <{values = dense<0.0> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
  %c0 = "tosa.const"() <{values = dense<0.0> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
  %y = "tfl.unidirectional_sequence_lstm"(%x, %w1, %w2, %w3, %w4, %w5, %w6, %w7, %w8, %none, %none, %none, %b12, %b13, %b14, %b15, %none, %none, %h0, %c0, %none, %none, %none, %none) {umac.lstm = {cell_activation = "tanh", cell_clip = 0.0 : f32, time_major = true}} : (tensor<3x2x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, none, none, none, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, none, none, tensor<1x4xf32>, tensor<1x4xf32>, none, none, none, none) -> tensor<3x2x4xf32>
  return %y : tensor<3x2x4xf32>
}


// -----

// A module that has state globals of an earlier LSTM already (the pass run on its own output
// with a new LSTM added): the new state takes the next free names.
// CHECK-DAG: ml_program.global private mutable @umac_lstm0_hidden(dense<0>
// CHECK-DAG: ml_program.global private mutable @umac_lstm1_hidden(
// CHECK-DAG: ml_program.global private mutable @umac_lstm1_cell(
// CHECK-LABEL: func.func @second(
// CHECK: ml_program.global_load @umac_lstm1_hidden
ml_program.global private mutable @umac_lstm0_hidden(dense<0> : tensor<1x1x1x4xi8>) : tensor<1x1x1x4xi8>
func.func @second(%x: tensor<1x3x2xi8>) -> tensor<1x3x4xi8> {
  %none = "tfl.no_value"() {value} : () -> none
  %w1 = "tosa.const"() <{values = dense<1> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w2 = "tosa.const"() <{values = dense<2> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w3 = "tosa.const"() <{values = dense<3> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w4 = "tosa.const"() <{values = dense<4> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w5 = "tosa.const"() <{values = dense<5> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %w6 = "tosa.const"() <{values = dense<6> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %w7 = "tosa.const"() <{values = dense<7> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %w8 = "tosa.const"() <{values = dense<8> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %b12 = "tosa.const"() <{values = dense<1200> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b13 = "tosa.const"() <{values = dense<1300> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b14 = "tosa.const"() <{values = dense<1400> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b15 = "tosa.const"() <{values = dense<1500> : tensor<4xi32>}> : () -> tensor<4xi32>
  %h0 = "tosa.const"() <{values = dense<0> : tensor<1x4xi8>}> : () -> tensor<1x4xi8>
  %c0 = "tosa.const"() <{values = dense<0> : tensor<1x4xi16>}> : () -> tensor<1x4xi16>
  %y = "tfl.unidirectional_sequence_lstm"(%x, %w1, %w2, %w3, %w4, %w5, %w6, %w7, %w8, %none, %none, %none, %b12, %b13, %b14, %b15, %none, %none, %h0, %c0, %none, %none, %none, %none) {umac.lstm = {cell_activation = "tanh", cell_clip = 10.0 : f32, time_major = false, input_scale = 0.5 : f32, input_zero_point = 3 : i64, weight_scales = array<f32: 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4>, hidden_scale = 0.25 : f32, hidden_zero_point = -5 : i64, cell_scale = 6.1035156e-5 : f32}} : (tensor<1x3x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi8>, none, none, none, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, none, none, tensor<1x4xi8>, tensor<1x4xi16>, none, none, none, none) -> tensor<1x3x4xi8>
  return %y : tensor<1x3x4xi8>
}
