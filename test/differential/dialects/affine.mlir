// Affine dialect: loops, conditionals, loads/stores and apply with map and set aliases.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --lower-affine
// RUN: %compare %s -canonicalize
// RUN: %compare %s --affine-loop-normalize

#map = affine_map<(d0) -> (d0 * 2 + 1)>
#set = affine_set<(d0) : (d0 - 4 >= 0)>

func.func @loops(%buf: memref<16xf32>, %out: memref<16xf32>, %n: index) {
  affine.for %i = 0 to 8 {
    %j = affine.apply #map(%i)
    %v = affine.load %buf[%j] : memref<16xf32>
    affine.if #set(%i) {
      affine.store %v, %out[%i] : memref<16xf32>
    }
  }
  affine.for %k = 0 to %n step 2 {
    %m = affine.min affine_map<(d0)[s0] -> (d0 + 2, s0)>(%k)[%n]
    %w = affine.load %out[%k + 1] : memref<16xf32>
    memref.store %w, %out[%m] : memref<16xf32>
    affine.store %w, %buf[%k] : memref<16xf32>
  }
  return
}

func.func @reduce(%buf: memref<16xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %sum = affine.for %i = 0 to 16 iter_args(%acc = %zero) -> (f32) {
    %v = affine.load %buf[%i] : memref<16xf32>
    %s = arith.addf %acc, %v : f32
    affine.yield %s : f32
  }
  %r = affine.parallel (%i) = (0) to (16) reduce ("addf") -> f32 {
    %v = affine.load %buf[%i] : memref<16xf32>
    affine.yield %v : f32
  }
  %t = arith.addf %sum, %r : f32
  return %t : f32
}
