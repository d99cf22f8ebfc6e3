// Arith dialect: verifier errors on mismatched types and bad casts.
// RUN: %compare %s --split-input-file --verify-diagnostics
// RUN: %compare %s

func.func @ok(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}

// -----

func.func @bad_extsi(%a: i32) -> i16 {
  // expected-error @+1 {{'arith.extsi' op operand type 'i32' and result type 'i16' are cast incompatible}}
  %0 = arith.extsi %a : i32 to i16
  return %0 : i16
}

// -----

func.func @bad_constant() -> i32 {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = 1 : i64}> : () -> i32
  return %0 : i32
}
