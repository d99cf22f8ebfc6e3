// Func dialect: verifier errors on mismatched returns and calls to unknown symbols.
// RUN: %compare %s --split-input-file --verify-diagnostics

func.func @bad_return(%a: i32) -> i64 {
  // expected-error @+1 {{type of return operand 0 ('i32') doesn't match function result type ('i64') in function @bad_return}}
  return %a : i32
}

// -----

func.func @bad_call() {
  // expected-error @+1 {{'func.call' op 'missing' does not reference a valid function}}
  func.call @missing() : () -> ()
  return
}

// -----

func.func @bad_arity(%a: i32) -> (i32, i32) {
  // expected-error @+1 {{'func.return' op has 1 operands, but enclosing function (@bad_arity) returns 2}}
  return %a : i32
}
