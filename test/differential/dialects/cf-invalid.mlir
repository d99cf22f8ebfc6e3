// Cf dialect: verifier errors on branch operand mismatches and bad switch cases.
// RUN: %compare %s --split-input-file --verify-diagnostics
// RUN: %compare %s --split-input-file

func.func @bad_br(%a: i32) {
  // expected-error @+1 {{branch has 1 operands for successor #0, but target block has 0}}
  cf.br ^bb1(%a : i32)
^bb1:
  return
}

// -----

func.func @bad_switch(%f: i32) {
  // expected-error @+1 {{'cf.switch' op number of case values (2) should match number of case destinations (1)}}
  "cf.switch"(%f) [^bb1, ^bb1] <{case_values = dense<[1, 2]> : vector<2xi32>, case_operand_segments = array<i32: 0>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}
