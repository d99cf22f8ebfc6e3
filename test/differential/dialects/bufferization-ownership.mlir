// Bufferization dialect: clone and dealloc ops on memrefs with ownership conditions.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s -canonicalize

func.func @ownership(%a: memref<4xf32>, %b: memref<4xf32>, %c: i1) -> i1 {
  %k = bufferization.clone %a : memref<4xf32> to memref<4xf32>
  %base, %off, %size, %stride = memref.extract_strided_metadata %k : memref<4xf32> -> memref<f32>, index, index, index
  %r = bufferization.dealloc (%base, %b : memref<f32>, memref<4xf32>) if (%c, %c) retain (%a : memref<4xf32>)
  return %r : i1
}
