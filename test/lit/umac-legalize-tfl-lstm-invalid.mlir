// RUN: umac-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-legalize-tfl-lstm)' -o /dev/null

// What TFLite Micro's LSTM kernel does not take, a 16x8 LSTM and an LSTM without the parameters
// umac reads from the .tflite file are errors at the op.

func.func @cifg(%x: tensor<1x3x2xi8>) -> tensor<1x3x4xi8> {
  %none = "tfl.no_value"() {value} : () -> none
  %w2 = "tosa.const"() <{values = dense<2> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w3 = "tosa.const"() <{values = dense<3> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w4 = "tosa.const"() <{values = dense<4> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w6 = "tosa.const"() <{values = dense<6> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %w7 = "tosa.const"() <{values = dense<7> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %w8 = "tosa.const"() <{values = dense<8> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %b12 = "tosa.const"() <{values = dense<1200> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b13 = "tosa.const"() <{values = dense<1300> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b14 = "tosa.const"() <{values = dense<1400> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b15 = "tosa.const"() <{values = dense<1500> : tensor<4xi32>}> : () -> tensor<4xi32>
  %h0 = "tosa.const"() <{values = dense<0> : tensor<1x4xi8>}> : () -> tensor<1x4xi8>
  %c0 = "tosa.const"() <{values = dense<0> : tensor<1x4xi16>}> : () -> tensor<1x4xi16>
  // expected-error @+1 {{operand #1 is absent: an LSTM with coupled input and forget gates (CIFG) is not supported yet}}
  %y = "tfl.unidirectional_sequence_lstm"(%x, %none, %w2, %w3, %w4, %none, %w6, %w7, %w8, %none, %none, %none, %b12, %b13, %b14, %b15, %none, %none, %h0, %c0, %none, %none, %none, %none) {umac.lstm = {cell_activation = "tanh", cell_clip = 10.0 : f32, time_major = false, input_scale = 0.5 : f32, input_zero_point = 3 : i64, weight_scales = array<f32: 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4>, hidden_scale = 0.25 : f32, hidden_zero_point = -5 : i64, cell_scale = 6.1035156e-5 : f32}} : (tensor<1x3x2xi8>, none, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, none, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi8>, none, none, none, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, none, none, tensor<1x4xi8>, tensor<1x4xi16>, none, none, none, none) -> tensor<1x3x4xi8>
  return %y : tensor<1x3x4xi8>
}

// -----

func.func @peephole(%x: tensor<1x3x2xi8>) -> tensor<1x3x4xi8> {
  %none = "tfl.no_value"() {value} : () -> none
  %w1 = "tosa.const"() <{values = dense<1> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w2 = "tosa.const"() <{values = dense<2> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w3 = "tosa.const"() <{values = dense<3> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w4 = "tosa.const"() <{values = dense<4> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
  %w5 = "tosa.const"() <{values = dense<5> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %w6 = "tosa.const"() <{values = dense<6> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %w7 = "tosa.const"() <{values = dense<7> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %w8 = "tosa.const"() <{values = dense<8> : tensor<4x4xi8>}> : () -> tensor<4x4xi8>
  %p9 = "tosa.const"() <{values = dense<1> : tensor<4xi8>}> : () -> tensor<4xi8>
  %b12 = "tosa.const"() <{values = dense<1200> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b13 = "tosa.const"() <{values = dense<1300> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b14 = "tosa.const"() <{values = dense<1400> : tensor<4xi32>}> : () -> tensor<4xi32>
  %b15 = "tosa.const"() <{values = dense<1500> : tensor<4xi32>}> : () -> tensor<4xi32>
  %h0 = "tosa.const"() <{values = dense<0> : tensor<1x4xi8>}> : () -> tensor<1x4xi8>
  %c0 = "tosa.const"() <{values = dense<0> : tensor<1x4xi16>}> : () -> tensor<1x4xi16>
  // expected-error @+1 {{an LSTM with peephole weights (operand #9) is not supported yet (nor by TFLite Micro)}}
  %y = "tfl.unidirectional_sequence_lstm"(%x, %w1, %w2, %w3, %w4, %w5, %w6, %w7, %w8, %p9, %none, %none, %b12, %b13, %b14, %b15, %none, %none, %h0, %c0, %none, %none, %none, %none) {umac.lstm = {cell_activation = "tanh", cell_clip = 10.0 : f32, time_major = false, input_scale = 0.5 : f32, input_zero_point = 3 : i64, weight_scales = array<f32: 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4>, hidden_scale = 0.25 : f32, hidden_zero_point = -5 : i64, cell_scale = 6.1035156e-5 : f32}} : (tensor<1x3x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4xi8>, none, none, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, none, none, tensor<1x4xi8>, tensor<1x4xi16>, none, none, none, none) -> tensor<1x3x4xi8>
  return %y : tensor<1x3x4xi8>
}

// -----

func.func @no_attribute(%x: tensor<1x3x2xi8>) -> tensor<1x3x4xi8> {
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
  // expected-error @+1 {{the LSTM has no 'umac.lstm' attribute (its quantization and options, which umac reads from the .tflite file)}}
  %y = "tfl.unidirectional_sequence_lstm"(%x, %w1, %w2, %w3, %w4, %w5, %w6, %w7, %w8, %none, %none, %none, %b12, %b13, %b14, %b15, %none, %none, %h0, %c0, %none, %none, %none, %none) : (tensor<1x3x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi8>, none, none, none, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, none, none, tensor<1x4xi8>, tensor<1x4xi16>, none, none, none, none) -> tensor<1x3x4xi8>
  return %y : tensor<1x3x4xi8>
}

// -----

func.func @int16_activations(%x: tensor<1x3x2xi16>) -> tensor<1x3x4xi16> {
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
  %h0 = "tosa.const"() <{values = dense<0> : tensor<1x4xi16>}> : () -> tensor<1x4xi16>
  %c0 = "tosa.const"() <{values = dense<0> : tensor<1x4xi16>}> : () -> tensor<1x4xi16>
  // expected-error @+1 {{an LSTM with i16 activations is not supported yet (int8 with an int16 cell, or float32)}}
  %y = "tfl.unidirectional_sequence_lstm"(%x, %w1, %w2, %w3, %w4, %w5, %w6, %w7, %w8, %none, %none, %none, %b12, %b13, %b14, %b15, %none, %none, %h0, %c0, %none, %none, %none, %none) {umac.lstm = {cell_activation = "tanh", cell_clip = 10.0 : f32, time_major = false, input_scale = 0.5 : f32, input_zero_point = 3 : i64, weight_scales = array<f32: 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4, 9.765625e-4>, hidden_scale = 0.25 : f32, hidden_zero_point = -5 : i64, cell_scale = 6.1035156e-5 : f32}} : (tensor<1x3x2xi16>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x2xi8>, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi8>, none, none, none, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, none, none, tensor<1x4xi16>, tensor<1x4xi16>, none, none, none, none) -> tensor<1x3x4xi16>
  return %y : tensor<1x3x4xi16>
}

