// Bufferization dialect: tensor/buffer conversions, alloc_tensor, clones and deallocation.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --one-shot-bufferize="bufferize-function-boundaries"

func.func @convert(%m: memref<4xf32>, %n: index) -> (tensor<4xf32>, tensor<?xf32>) {
  %t = bufferization.to_tensor %m restrict : memref<4xf32> to tensor<4xf32>
  %a = bufferization.alloc_tensor(%n) : tensor<?xf32>
  %c = bufferization.alloc_tensor() copy(%t) : tensor<4xf32>
  %b = bufferization.to_buffer %c read_only : tensor<4xf32> to memref<4xf32>
  %v = bufferization.to_tensor %b restrict : memref<4xf32> to tensor<4xf32>
  return %v, %a : tensor<4xf32>, tensor<?xf32>
}

func.func @insert(%t: tensor<4xf32>, %f: f32, %i: index) -> tensor<4xf32> {
  %r = tensor.insert %f into %t[%i] : tensor<4xf32>
  %m = bufferization.materialize_in_destination %r in %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}
