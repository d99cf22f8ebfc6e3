// --verify-diagnostics: matching expected-error/warning/remark/note annotations at @+N, @-N,
// @above, @below, @unknown and named lines, with -re patterns; exit code 0 when all match.
// RUN: %compare %s --split-input-file --verify-diagnostics
// RUN: %compare %s --split-input-file --verify-diagnostics --canonicalize
// RUN: %compare %s --split-input-file --verify-diagnostics=all
// RUN: %compare %s --split-input-file --verify-diagnostics=only-expected
// Mismatches: the annotations of the other file are never produced here.
// RUN: %compare %S/Inputs/diagnostics-mismatch.mlir --split-input-file --verify-diagnostics
// RUN: %compare %S/Inputs/diagnostics-mismatch.mlir --verify-diagnostics
// RUN: %compare %S/Inputs/diagnostics-mismatch.mlir --split-input-file --verify-diagnostics=only-expected

func.func @types() -> i32 {
  %c = arith.constant 1 : i64
  // expected-error @+1 {{type of return operand 0 ('i64') doesn't match function result type ('i32')}}
  return %c : i64
}

// -----

func.func @above() {
  %a = arith.constant 0 : i32
  %b = "arith.addi"(%a, %a) : (i32, i32) -> i64
  // expected-error @above {{'arith.addi' op requires the same type for all operands and results}}
  return
}

// -----

func.func private @dup()
// expected-note @-1 {{see existing symbol definition here}}
// expected-error-re @+1 {{redefinition of symbol named '{{[a-z]+}}'}}
func.func private @dup()

// -----

// expected-error @+1 {{expected non-function type}}
func.func @bad_type(%a: notatype) {
  return
}

// -----

func.func @named() {
  // expected-error @below {{custom op 'arith.frobnicate' is unknown}}
  %a = arith.frobnicate : i32
  return
}
