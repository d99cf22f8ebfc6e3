// Ub dialect: poison values of scalar, vector and partially poisoned types.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --convert-ub-to-llvm

func.func @poison() -> (i32, f64, vector<4xf32>, index) {
  %0 = ub.poison : i32
  %1 = ub.poison : f64
  %2 = ub.poison : vector<4xf32>
  %3 = ub.poison <#ub.poison> : index
  %4 = arith.addi %0, %0 : i32
  return %4, %1, %2, %3 : i32, f64, vector<4xf32>, index
}

func.func @unreachable_tail(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return
^bb2:
  ub.unreachable
}
