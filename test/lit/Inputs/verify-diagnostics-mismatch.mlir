func.func @g(%a: i32, %b: i64) {
  // No expectation here: the verifier's error is unexpected.
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @fine() {
  // expected-error @+1 {{this never happens}}
  return
}
