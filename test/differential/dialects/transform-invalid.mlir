// Transform dialect: verifier errors on named sequences and yields.
// RUN: %compare %s --split-input-file --verify-diagnostics
// RUN: %compare %s --split-input-file

module attributes {transform.with_named_sequence} {
  // expected-error @+1 {{must provide consumed/readonly status for arguments of external or called ops}}
  "transform.named_sequence"() <{function_type = (!transform.any_op) -> (), sym_name = "empty"}> ({}) : () -> ()
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @bad_yield(%arg: !transform.any_op {transform.readonly}) -> !transform.any_op {
    // expected-error @+1 {{expected terminator to have as many operands as the parent op has results}}
    transform.yield
  }
}
