// Linalg dialect: named ops, generic ops with indexing maps, fill, transpose and reduce on tensors.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --linalg-generalize-named-ops
// RUN: %compare %s --linalg-fuse-elementwise-ops

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1, d0)>

func.func @named(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %add = linalg.add ins(%mm, %mm : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %add : tensor<4x16xf32>
}

func.func @generic(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %init = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%init : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.reduce ins(%exp : tensor<4x8xf32>) outs(%z : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %te = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%exp : tensor<4x8xf32>) outs(%te : tensor<8x4xf32>) permutation = [1, 0]
  return %sum, %t : tensor<4xf32>, tensor<8x4xf32>
}

func.func @on_buffers(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  linalg.copy ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %out : f32
    linalg.yield %m : f32
  }
  return
}
