// Memref dialect: verifier errors on bad dynamic sizes, casts and indices.
// RUN: %compare %s --split-input-file --verify-diagnostics

func.func @bad_alloc() {
  // expected-error @+1 {{'memref.alloc' op incorrect number of dynamic sizes, has 0, expected 1}}
  %a = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<?xf32>
  return
}

// -----

func.func @bad_cast(%m: memref<4xf32>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<4xf32>' and result type 'memref<8xf32>' are cast incompatible}}
  %c = memref.cast %m : memref<4xf32> to memref<8xf32>
  return
}

// -----

func.func @bad_load(%m: memref<4x4xf32>, %i: index) {
  // expected-error @+1 {{'memref.load' op incorrect number of indices for load, expected 2 but got 1}}
  %v = "memref.load"(%m, %i) : (memref<4x4xf32>, index) -> f32
  return
}
