// --split-input-file: chunks processed on their own, outputs joined by the marker (or
// --output-split-marker), a failing chunk (parse error, verifier error, failing pass) still
// followed by its separator, line numbers of the whole file, custom markers.
// RUN: %compare %s --split-input-file
// RUN: %compare %s --split-input-file --canonicalize
// RUN: %compare %s --split-input-file --allow-unregistered-dialect
// RUN: %compare %s --split-input-file --output-split-marker='// ====='
// RUN: %compare %s --split-input-file='// ---'
// RUN: %compare %s --split-input-file=bogus
// RUN: %compare %s --split-input-file --test-pass-failure
// RUN: %compare %s --split-input-file --emit-bytecode -o out.mlirbc
// RUN: %compare %s

func.func @first() -> i32 {
  %c = arith.constant 1 : i32
  return %c : i32
}

// -----

func.func @parse_error( {
}

// -----

func.func @verifier_error() -> i32 {
  %c = arith.constant 1 : i64
  return %c : i64
}

// -----

"foo.unregistered"() : () -> ()

// -----
// ---
func.func @last() {
  return
}
// -----
