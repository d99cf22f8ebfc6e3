// Tosa dialect: verifier errors on incompatible shapes and attributes.
// RUN: %compare %s --split-input-file --verify-diagnostics

func.func @bad_transpose(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'tosa.transpose' op expected perms attribute to have size 2 (input rank) but got size 3}}
  %0 = tosa.transpose %a {perms = array<i32: 1, 0, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @bad_reduce(%a: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'tosa.reduce_sum' op expect input tensor rank (2) to be larger than reduce axis (2)}}
  %0 = tosa.reduce_sum %a {axis = 2 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}
