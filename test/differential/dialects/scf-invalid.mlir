// Scf dialect: verifier errors on loops and conditionals with mismatched results.
// RUN: %compare %s --split-input-file --verify-diagnostics

func.func @bad_if(%c: i1) -> i32 {
  // expected-error @+1 {{'scf.if' op must have an else block if defining values}}
  %r = "scf.if"(%c) ({
    %z = arith.constant 0 : i32
    scf.yield %z : i32
  }, {}) : (i1) -> i32
  return %r : i32
}

// -----

func.func @bad_for(%lb: index, %ub: index, %f: f32) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op mismatch in number of loop-carried values and defined values}}
  %r:2 = "scf.for"(%lb, %ub, %c1, %f) ({
  ^bb0(%i: index, %a: f32):
    scf.yield %a : f32
  }) : (index, index, index, f32) -> (f32, f32)
  return
}

// -----

func.func @bad_yield(%c: i1, %x: i32) -> i64 {
  // expected-error @+1 {{'scf.if' op along control flow edge from Operation scf.yield to parent: successor operand type #0 'i32' should match successor input type #0 'i64'}}
  %r = scf.if %c -> (i64) {
    // expected-note @+1 {{region branch point}}
    scf.yield %x : i32
  } else {
    %z = arith.constant 0 : i64
    scf.yield %z : i64
  }
  return %r : i64
}
