// Passes and pipelines given as flags, with LLVM command-line semantics: single or double dash,
// `=` for options, several options in quotes, command-line order, and the implicit nesting
// mlir-opt applies to op-specific passes.
// RUN: %compare %s --canonicalize
// RUN: %compare %s -canonicalize -cse
// RUN: %compare %s --cse --canonicalize
// RUN: %compare %s --canonicalize=max-iterations=1
// RUN: %compare %s --canonicalize="max-iterations=3 region-simplify=disabled"
// RUN: %compare %s '-canonicalize=max-iterations=3 top-down=false'
// RUN: %compare %s --convert-to-llvm=filter-dialects=arith,func
// RUN: %compare %s --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts
// RUN: %compare %s -convert-to-llvm
// A function pass given as a flag runs on every function.
// RUN: %compare %s --convert-math-to-llvm --canonicalize
// RUN: %compare %s --inline --symbol-dce
// RUN: %compare %s --mlir-disable-threading -sccp -canonicalize
// Flags and --pass-pipeline do not mix; unknown passes and options are errors.
// RUN: %compare %s --canonicalize --pass-pipeline='builtin.module(cse)'
// RUN: %compare %s --no-such-pass
// RUN: %compare %s --canonicalize=no-such-option=1
// RUN: %compare %s --canonicalize=max-iterations=many
// RUN: %compare %s --canonicalize=
// RUN: %compare %s ---canonicalize
// RUN: %compare %s --Canonicalize
// RUN: %compare %s -c

func.func private @helper(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = arith.addi %x, %c1 : i32
  return %r : i32
}

func.func @fold(%x: i32) -> (i32, i32, f32) {
  %a = arith.constant 2 : i32
  %b = arith.constant 3 : i32
  %c = arith.addi %a, %b : i32
  %d = arith.constant 5 : i32
  %e = call @helper(%x) : (i32) -> i32
  %f = arith.constant 1.5 : f32
  %g = math.absf %f : f32
  %same = arith.addi %c, %d : i32
  %unused = arith.muli %e, %same : i32
  return %c, %e, %g : i32, i32, f32
}

func.func private @dead() {
  return
}
