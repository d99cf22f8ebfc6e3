// Expected diagnostics that are not produced, and a produced one that was not expected.
func.func @missing() {
  // expected-error @+1 {{this error is never reported}}
  return
}

// -----

func.func @unexpected() -> i32 {
  %c = arith.constant 1 : i64
  return %c : i64
}

// -----

func.func @wrong_text() -> i32 {
  %c = arith.constant 1 : i64
  // expected-error @+1 {{a different message}}
  return %c : i64
}

// -----

// expected-warning @+1 {{a warning nobody emits}}
func.func private @quiet()
