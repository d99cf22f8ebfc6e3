// Vector dialect: verifier errors on shuffles, broadcasts and extracts.
// RUN: %compare %s --split-input-file --verify-diagnostics

func.func @bad_shuffle(%a: vector<4xf32>) -> vector<2xf32> {
  // expected-error @+1 {{'vector.shuffle' op mask index #2 out of range}}
  %0 = vector.shuffle %a, %a [0, 9] : vector<4xf32>, vector<4xf32>
  return %0 : vector<2xf32>
}

// -----

func.func @bad_broadcast(%a: vector<3xf32>) -> vector<4xf32> {
  // expected-error @+1 {{'vector.broadcast' op dimension mismatch (3 vs. 4)}}
  %0 = vector.broadcast %a : vector<3xf32> to vector<4xf32>
  return %0 : vector<4xf32>
}

// -----

func.func @bad_reduction(%a: vector<4xf32>) -> i32 {
  // expected-error @+1 {{'vector.reduction' op failed to verify that source operand and result have same element type}}
  %0 = vector.reduction <add>, %a : vector<4xf32> into i32
  return %0 : i32
}
