// Spirv dialect: verifier errors on type mismatches and misplaced ops.
// RUN: %compare %s --split-input-file --verify-diagnostics

spirv.module Logical GLSL450 {
  spirv.func @bad_add(%a: i32, %b: i64) -> i32 "None" {
    // expected-error @+1 {{'spirv.IAdd' op failed to verify that all of {operand1, operand2, result} have same type}}
    %0 = "spirv.IAdd"(%a, %b) : (i32, i64) -> i32
    spirv.ReturnValue %0 : i32
  }
}

// -----

spirv.module Logical GLSL450 {
  spirv.func @bad_return(%a: i32) -> f32 "None" {
    // expected-error @+1 {{return value's type ('i32') mismatch with function's result type ('f32')}}
    spirv.ReturnValue %a : i32
  }
}
