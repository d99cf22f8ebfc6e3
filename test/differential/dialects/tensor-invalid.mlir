// Tensor dialect: verifier errors on bad extract indices and reshapes.
// RUN: %compare %s --split-input-file --verify-diagnostics

func.func @bad_extract(%t: tensor<4x4xf32>, %i: index) -> f32 {
  // expected-error @+1 {{'tensor.extract' op incorrect number of indices for extract_element}}
  %0 = "tensor.extract"(%t, %i) : (tensor<4x4xf32>, index) -> f32
  return %0 : f32
}

// -----

func.func @bad_empty(%n: index) -> tensor<4x4xf32> {
  // expected-error @+1 {{'tensor.empty' op incorrect number of dynamic sizes, has 1, expected 0}}
  %0 = "tensor.empty"(%n) : (index) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
