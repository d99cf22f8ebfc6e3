// --verify-diagnostics: expected diagnostics pass, in every designator form, across chunks.
// RUN: umac-opt %s --split-input-file --verify-diagnostics
// The same file without the flag fails and prints the errors.
// RUN: not umac-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=PLAIN
// Both directions fail: an unexpected diagnostic, and an expectation that was not produced.
// RUN: not umac-opt %S/Inputs/verify-diagnostics-mismatch.mlir --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not umac-opt %S/Inputs/verify-diagnostics-mismatch.mlir --split-input-file --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=MISMATCH

// PLAIN: verify-diagnostics.mlir:[[@LINE+9]]:8: error: custom op 'tosa.bogus' is unknown
// PLAIN: error: 'arith.addi' op requires the same type for all operands and results

// MISMATCH: verify-diagnostics-mismatch.mlir:3:8: error: unexpected error: 'arith.addi' op requires the same type for all operands and results
// MISMATCH-NEXT: {{^}}  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
// MISMATCH-NEXT: {{^}}       ^
// MISMATCH: verify-diagnostics-mismatch.mlir:10:6: error: expected error "this never happens" was not produced

func.func @f() {
  %0 = tosa.bogus // expected-error {{custom op 'tosa.bogus' is unknown}}
  return
}

// -----

func.func @g(%a: i32, %b: i64) {
  // expected-error @+1 {{'arith.addi' op requires the same type for all operands and results}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @h(%a: i32, %b: i64) {
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  // expected-error @-1 {{requires the same type}}
  return
}

// -----

func.func @above(%a: i32, %b: i64) {
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  // expected-error @above {{requires the same type}}
  return
}

// -----

func.func @below(%a: i32, %b: i64) {
  // expected-error @below {{requires the same type}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @regex(%a: i32, %b: i64) {
  // expected-error-re @+1 {{'arith.{{[a-z]+}}' op requires the {{(same|identical)}} type}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

// A diagnostic with a note, each expected on its own line.
func.func private @callee() // expected-note {{see existing symbol definition here}}
func.func private @callee() // expected-error {{redefinition of symbol named 'callee'}}

// -----

// Malformed text: the error is at the end of the input, on the last line.
func.func @truncated() {
  %0 = arith.constant 1 : i32
// expected-error {{expected operation name in quotes}}
