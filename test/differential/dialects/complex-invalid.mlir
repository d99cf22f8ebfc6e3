// Complex dialect: verifier errors on constants and element types.
// RUN: %compare %s --split-input-file --verify-diagnostics
// RUN: %compare %s --split-input-file

func.func @bad_constant() -> complex<f32> {
  // expected-error @+1 {{'complex.constant' op requires 'value' to be a complex constant, represented as array of two values}}
  %0 = complex.constant [1.0 : f32] : complex<f32>
  return %0 : complex<f32>
}

// -----

func.func @bad_create(%a: f64, %b: f64) -> complex<f32> {
  // expected-error @+1 {{'complex.create' op failed to verify that complex element type matches real operand type}}
  %0 = "complex.create"(%a, %b) : (f64, f64) -> complex<f32>
  return %0 : complex<f32>
}
