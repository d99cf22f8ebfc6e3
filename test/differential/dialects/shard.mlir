// Shard dialect: device grids, sharding annotations, process queries and collectives.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s -cse

shard.grid @grid(shape = 2x4)

func.func @annotate(%t: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %a = shard.shard %t to %s : tensor<8x16xf32>
  %r = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

func.func @queries() -> (index, index, index) {
  %i:2 = shard.process_multi_index on @grid axes = [0, 1] : index, index
  %l = shard.process_linear_index on @grid : index
  return %i#0, %i#1, %l : index, index, index
}

func.func @collectives(%t: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = shard.all_reduce %t on @grid grid_axes = [1] reduction = max : tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = shard.all_gather %0 on @grid grid_axes = [0] gather_axis = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
  %2 = shard.all_slice %1 on @grid grid_axes = [0] slice_axis = 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}
