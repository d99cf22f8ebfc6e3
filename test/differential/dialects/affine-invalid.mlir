// Affine dialect: verifier errors on loads with the wrong number of indices and bad yields.
// RUN: %compare %s --split-input-file --verify-diagnostics

func.func @bad_load(%buf: memref<4x4xf32>, %i: index) {
  // expected-error @+1 {{expects as many subscripts as affine map inputs}}
  %v = "affine.load"(%buf, %i) <{map = affine_map<(d0, d1) -> (d0, d1)>}> : (memref<4x4xf32>, index) -> f32
  return
}

// -----

func.func @bad_apply(%i: index) {
  // expected-error @+1 {{operand count and affine map dimension and symbol count must match}}
  %0 = "affine.apply"(%i) <{map = affine_map<(d0, d1) -> (d0 + d1)>}> : (index) -> index
  return
}
