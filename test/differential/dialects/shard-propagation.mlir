// Shard dialect: sharding propagation through elementwise and matmul ops from one annotation.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --pass-pipeline="builtin.module(func.func(sharding-propagation))"
// RUN: %compare %s --pass-pipeline="builtin.module(func.func(sharding-propagation,cse))"

shard.grid @grid(shape = 2x2)

func.func @propagate(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s : tensor<8x16xf32>
  %a2 = shard.shard %a1 to %s annotate_for_users : tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %sum = linalg.add ins(%a2, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %neg = tosa.negate %sum, %zp, %zp : (tensor<8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16xf32>
  return %neg : tensor<8x16xf32>
}
