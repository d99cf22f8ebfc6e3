// Emitc dialect: verifier errors on bad constants, includes and calls.
// RUN: %compare %s --split-input-file --verify-diagnostics

func.func @bad_constant() {
  // expected-error @+1 {{'emitc.constant' op value must not be empty}}
  %0 = "emitc.constant"() <{value = #emitc.opaque<"">}> : () -> i32
  return
}

// -----

func.func @bad_call_opaque(%a: i32) {
  // expected-error @+1 {{'emitc.call_opaque' op callee must not be empty}}
  %0 = emitc.call_opaque ""(%a) : (i32) -> i32
  return
}
