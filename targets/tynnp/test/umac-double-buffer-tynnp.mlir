// umac-double-buffer-tynnp: a tile loop umac-legalize-tynnp wrote single-buffered and marked
// tynnp.buffers = N (its tiles rotate through N buffers) is double-buffered: the iteration
// arguments listed in tynnp.reuse (the tokens a tile waits for before it reuses a buffer) are
// carried N tiles back through a shift register of iteration arguments, and the scf.if marked
// tynnp.drain (the drain of the tile before) moves to the end of the body, what followed it
// reading the values of the iteration before. The markers go. (The calls stand for the NPU
// instructions: a copy in, a job, a copy out, each after the tokens it takes.)
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-double-buffer-tynnp)' | FileCheck %s

func.func private @copy_in(i32) -> i32
func.func private @job(i32, i32) -> i32
func.func private @copy_out(i32) -> i32
func.func private @wait(i32)

// A convolution's loop: the copy in waits for the job of the tile before, the job for the copy
// out of the tile before; after the loop, the CU waits for the last copy out (result 1).
// CHECK-LABEL: func.func @nu
// CHECK-SAME: (%[[JOB0:.*]]: i32, %[[OUT0:.*]]: i32)
// CHECK: %[[R:.*]]:4 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[J1:.*]] = %[[JOB0]], %[[J2:.*]] = %[[JOB0]], %[[O1:.*]] = %[[OUT0]], %[[O2:.*]] = %[[OUT0]]) -> (i32, i32, i32, i32) {
// CHECK-NEXT: %[[IN:.*]] = func.call @copy_in(%[[J2]])
// CHECK-NEXT: %[[J:.*]] = func.call @job(%[[IN]], %[[O2]])
// CHECK-NEXT: %[[O:.*]] = func.call @copy_out(%[[J]])
// CHECK-NEXT: scf.yield %[[J]], %[[J1]], %[[O]], %[[O1]] : i32, i32, i32, i32
// CHECK-NEXT: } {loop_annotation = #{{.*}}}
// CHECK-NEXT: call @wait(%[[R]]#2)
// CHECK-NOT: tynnp.
func.func @nu(%job0: i32, %out0: i32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%job = %job0, %out = %out0) -> (i32, i32) {
    %in = func.call @copy_in(%job) : (i32) -> i32
    %j = func.call @job(%in, %out) : (i32, i32) -> i32
    %o = func.call @copy_out(%j) : (i32) -> i32
    scf.yield %j, %o : i32, i32
  } {loop_annotation = #llvm.loop_annotation<unroll = <full = true>>, tynnp.buffers = 2 : i64, tynnp.reuse = array<i64: 0, 1>}
  func.call @wait(%r#1) : (i32) -> ()
  return
}

// -----

func.func private @copy_in(i32) -> i32
func.func private @job(i32, i32) -> i32

// Three buffers: the listed argument (1) is carried three tiles back, the other (0) as it was.
// CHECK-LABEL: func.func @three
// CHECK: %[[R:.*]]:4 = scf.for %{{.*}} iter_args(%[[A:.*]] = %arg0, %[[B1:.*]] = %arg1, %[[B2:.*]] = %arg1, %[[B3:.*]] = %arg1) -> (i32, i32, i32, i32) {
// CHECK-NEXT: %[[IN:.*]] = func.call @copy_in(%[[A]])
// CHECK-NEXT: %[[J:.*]] = func.call @job(%[[IN]], %[[B3]])
// CHECK-NEXT: scf.yield %[[IN]], %[[J]], %[[B1]], %[[B2]] : i32, i32, i32, i32
// CHECK: return %[[R]]#0, %[[R]]#1 : i32, i32
func.func @three(%a0: i32, %b0: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %t = %c0 to %c6 step %c1 iter_args(%a = %a0, %b = %b0) -> (i32, i32) {
    %in = func.call @copy_in(%a) : (i32) -> i32
    %j = func.call @job(%in, %b) : (i32, i32) -> i32
    scf.yield %in, %j : i32, i32
  } {tynnp.buffers = 3 : i64, tynnp.reuse = array<i64: 1>}
  return %r#0, %r#1 : i32, i32
}

// -----

func.func private @copy_in() -> i32
func.func private @job(i32, i32) -> i32
func.func private @copy_out(i32) -> i32
func.func private @wait(i32)

// A vector-unit loop: the CU drains the tile before (waits for its job, copies its output out)
// before it copies this tile in. Double-buffered, it drains it after this tile's job issued,
// and the job follows the drain two tiles back (the carried value).
// CHECK-LABEL: func.func @vu
// CHECK: scf.for %[[T:.*]] = %{{.*}} iter_args(%[[BEFORE:.*]] = %arg0, %[[LAST:.*]] = %arg1) -> (i32, i32) {
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi uge, %[[T]], %{{.*}} : index
// CHECK-NEXT: %[[IN:.*]] = func.call @copy_in()
// CHECK-NEXT: %[[J:.*]] = func.call @job(%[[IN]], %[[LAST]])
// CHECK-NEXT: %[[D:.*]] = scf.if %[[FIRST]] -> (i32) {
// CHECK-NEXT: func.call @wait(%[[BEFORE]])
// CHECK-NEXT: %[[O:.*]] = func.call @copy_out(%[[BEFORE]])
// CHECK-NEXT: scf.yield %[[O]] : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[LAST]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[J]], %[[D]] : i32, i32
// CHECK-NOT: tynnp.
func.func @vu(%none: i32, %weights: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%before = %none, %last = %weights) -> (i32, i32) {
    %first = arith.cmpi uge, %t, %c1 : index
    %d = scf.if %first -> (i32) {
      func.call @wait(%before) : (i32) -> ()
      %o = func.call @copy_out(%before) : (i32) -> i32
      scf.yield %o : i32
    } else {
      scf.yield %last : i32
    } {tynnp.drain}
    %in = func.call @copy_in() : () -> i32
    %j = func.call @job(%in, %d) : (i32, i32) -> i32
    scf.yield %j, %d : i32, i32
  } {tynnp.buffers = 2 : i64}
  return %r#1 : i32
}

// -----

func.func private @job(i32) -> i32

// One buffer: the markers go, the loop stays as it is.
// CHECK-LABEL: func.func @single
// CHECK: scf.for %{{.*}} iter_args(%[[A:.*]] = %arg0) -> (i32) {
// CHECK-NEXT: %[[J:.*]] = func.call @job(%[[A]])
// CHECK-NEXT: scf.yield %[[J]] : i32
// CHECK-NEXT: }
// CHECK-NOT: tynnp.
func.func @single(%a0: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %t = %c0 to %c2 step %c1 iter_args(%a = %a0) -> (i32) {
    %j = func.call @job(%a) : (i32) -> i32
    scf.yield %j : i32
  } {tynnp.buffers = 1 : i64, tynnp.reuse = array<i64: 0>}
  return %r : i32
}

// -----

func.func private @job(i32) -> i32

func.func @out_of_range(%a0: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{umac-double-buffer-tynnp: this loop lists 1 in tynnp.reuse, which is not one of its 1 iteration arguments once}}
  %r = scf.for %t = %c0 to %c2 step %c1 iter_args(%a = %a0) -> (i32) {
    %j = func.call @job(%a) : (i32) -> i32
    scf.yield %j : i32
  } {tynnp.buffers = 2 : i64, tynnp.reuse = array<i64: 1>}
  return %r : i32
}

// -----

func.func private @job(i32) -> i32

func.func @not_a_count(%a0: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{umac-double-buffer-tynnp: this loop has a tynnp.buffers that is not a buffer count (1 to 16)}}
  %r = scf.for %t = %c0 to %c2 step %c1 iter_args(%a = %a0) -> (i32) {
    %j = func.call @job(%a) : (i32) -> i32
    scf.yield %j : i32
  } {tynnp.buffers = 0 : i64}
  return %r : i32
}

// -----

func.func private @job(i32) -> i32

// A drained loop rotates through two buffers only.
func.func @drain_three(%a0: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  // expected-error @+1 {{umac-double-buffer-tynnp: this loop drains the tile before (tynnp.drain), which double-buffers (2 buffers) but not 3}}
  %r = scf.for %t = %c0 to %c2 step %c1 iter_args(%a = %a0) -> (i32) {
    %d = scf.if %true -> (i32) {
      %j = func.call @job(%a) : (i32) -> i32
      scf.yield %j : i32
    } else {
      scf.yield %a : i32
    } {tynnp.drain}
    scf.yield %d : i32
  } {tynnp.buffers = 3 : i64}
  return %r : i32
}

// -----

func.func private @job(i32) -> i32
func.func private @use(i32)

// The drain's result is used but not carried, so there is no value of the iteration before.
func.func @not_carried(%a0: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  // expected-error @+1 {{umac-double-buffer-tynnp: this loop drains the tile before in an scf.if that cannot move: its result #0 is used but not yielded, so not carried}}
  %r = scf.for %t = %c0 to %c2 step %c1 iter_args(%a = %a0) -> (i32) {
    %d = scf.if %true -> (i32) {
      %j = func.call @job(%a) : (i32) -> i32
      scf.yield %j : i32
    } else {
      scf.yield %a : i32
    } {tynnp.drain}
    func.call @use(%d) : (i32) -> ()
    scf.yield %a : i32
  } {tynnp.buffers = 2 : i64}
  return %r : i32
}

// -----

func.func private @job(i32) -> i32

func.func @drain_not_if(%a0: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{umac-double-buffer-tynnp: this loop marks a func.call as tynnp.drain, which must be an scf.if}}
  %r = scf.for %t = %c0 to %c2 step %c1 iter_args(%a = %a0) -> (i32) {
    %j = func.call @job(%a) {tynnp.drain} : (i32) -> i32
    scf.yield %j : i32
  } {tynnp.buffers = 2 : i64}
  return %r : i32
}
