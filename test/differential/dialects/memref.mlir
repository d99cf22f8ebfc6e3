// Memref dialect: allocation, views, subviews, casts, copies and global memrefs.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --expand-strided-metadata
// RUN: %compare %s --finalize-memref-to-llvm

#strided = strided<[8, 1], offset: ?>

memref.global "private" constant @table : memref<4xi32> = dense<[1, 2, 3, 4]>

func.func @memrefs(%n: index, %src: memref<8x8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc(%n) {alignment = 64 : i64} : memref<?x8xf32>
  %s = memref.alloca() : memref<4xf32>
  %g = memref.get_global @table : memref<4xi32>
  %sub = memref.subview %src[%c1, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, #strided>
  %cast = memref.cast %a : memref<?x8xf32> to memref<?x?xf32>
  %d = memref.dim %cast, %c0 : memref<?x?xf32>
  %v = memref.load %sub[%c0, %c1] : memref<4x4xf32, #strided>
  memref.store %v, %s[%c0] : memref<4xf32>
  %flat = memref.collapse_shape %src [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  %e = memref.expand_shape %flat [[0, 1]] output_shape [16, 4] : memref<64xf32> into memref<16x4xf32>
  memref.copy %src, %src : memref<8x8xf32> to memref<8x8xf32>
  memref.dealloc %a : memref<?x8xf32>
  return %v : f32
}
