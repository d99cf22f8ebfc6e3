// Printing the IR around passes and the pass manager's reports: before/after all or named
// passes, only on change or failure, module scope, local scope, a file tree, statistics and
// the pipeline dump. (Timing reports are left out: their numbers differ on every run.)
// RUN: %compare %s --canonicalize --cse --mlir-print-ir-after-all
// RUN: %compare %s --canonicalize --cse --mlir-print-ir-before-all -o /dev/null
// RUN: %compare %s --canonicalize --cse --mlir-print-ir-before=cse --mlir-print-ir-after=canonicalize
// RUN: %compare %s --canonicalize --cse --mlir-print-ir-after=cse,canonicalize
// RUN: %compare %s --cse --cse --mlir-print-ir-after-all --mlir-print-ir-after-change
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(canonicalize))' --mlir-print-ir-after-all --mlir-print-ir-module-scope --mlir-disable-threading
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(canonicalize))' --mlir-print-ir-after-all --mlir-print-ir-module-scope
// RUN: %compare %s --test-pass-failure --mlir-print-ir-after-failure
// RUN: %compare %s --canonicalize --mlir-print-ir-after-all --mlir-print-local-scope
// RUN: %compare %s --canonicalize --mlir-print-ir-after-all --mlir-print-ir-tree-dir=tree
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(canonicalize,cse))' --mlir-pass-statistics --mlir-disable-threading
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(canonicalize,cse))' --mlir-pass-statistics --mlir-pass-statistics-display=pipeline --mlir-disable-threading
// RUN: %compare %s --canonicalize --cse --dump-pass-pipeline
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=2}),cse)' --dump-pass-pipeline -o /dev/null
// RUN: %compare %s --canonicalize --verify-each
// RUN: %compare %s --canonicalize --verify-each=false

#map = affine_map<(d0) -> (d0 floordiv 2)>
func.func @f(%x: index, %y: i32) -> (index, i32, i32) {
  %c0 = arith.constant 0 : i32
  %a = arith.addi %y, %c0 : i32
  %b = arith.addi %y, %c0 : i32
  %m = affine.apply #map(%x)
  %big = arith.constant dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>
  %e = tensor.extract %big[%m] : tensor<8xi32>
  return %m, %a, %e : index, i32, i32
}

func.func @g(%y: i32) -> i32 loc("g.py":3:7) {
  %c1 = arith.constant 1 : i32 loc(fused["g.py":4:1, "h.py":1:1])
  %r = arith.muli %y, %c1 : i32 loc(callsite("inner"("a.c":1:1) at "b.c":2:2))
  return %r : i32
}
