// An op the lowering cannot handle fails the pipeline with an error at that op, and no output.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-lower-to-llvm)'
// Failing chunks print nothing but the separators between them, as in mlir-opt.
// RUN: not umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-lower-to-llvm)' 2>/dev/null | FileCheck %s --check-prefix=NOOUT
// NOOUT: {{^// -{5}$}}
// NOOUT-NOT: {{.}}

func.func @custom(%a: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{failed to legalize operation 'tosa.custom'}}
  %0 = tosa.custom %a {domain_name = "acme", implementation_attrs = "", operator_name = "frob"} : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// umac IR that is invalid is caught by the verifier before the pipeline runs.
func.func @bad_call(%a: memref<4xi8>) {
  // expected-error @+1 {{requires at least one output operand}}
  "umac.call_extern"(%a) {callee = @k, operandSegmentSizes = array<i32: 1, 0>} : (memref<4xi8>) -> ()
  return
}
