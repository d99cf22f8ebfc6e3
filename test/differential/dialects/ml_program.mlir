// Ml_program dialect: subgraphs, funcs, mutable and immutable globals with load/store.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --mlprogram-pipeline-globals

ml_program.global private mutable @state(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
ml_program.global public @weights(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
ml_program.global private mutable @extern(#ml_program.extern : tensor<2xi32>) : tensor<2xi32>

ml_program.subgraph @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = ml_program.global_load @state : tensor<4xf32>
  %w = ml_program.global_load_const @weights : tensor<4xf32>
  %a = arith.addf %s, %x : tensor<4xf32>
  %m = arith.mulf %a, %w : tensor<4xf32>
  ml_program.global_store @state = %m : tensor<4xf32>
  ml_program.output %m : tensor<4xf32>
}

ml_program.func @plain(%x: i32) -> i32 {
  ml_program.return %x : i32
}

func.func @graph_ops(%t: tensor<4xf32>) -> tensor<4xf32> {
  %tok = ml_program.token
  %s, %tok2 = ml_program.global_load_graph @state ordering(%tok -> !ml_program.token) : tensor<4xf32>
  return %s : tensor<4xf32>
}
