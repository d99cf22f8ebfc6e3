// umac-elide-output-copies: a buffer copied whole into a function argument at the end becomes a
// view of that argument: what writes it writes the caller's memory, and nothing is copied.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-elide-output-copies)' | FileCheck %s

// Through a collapse: the buffer becomes the argument expanded back (the same reassociation).
// CHECK-LABEL: func.func @collapsed(
// CHECK-SAME: %[[X:[^:]*]]: memref<1x1x1x640xi8>, %[[OUT:[^:]*]]: memref<1x640xi8>)
// CHECK-NEXT: %[[A:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1, 2], [3]] output_shape [1, 1, 1, 640] : memref<1x640xi8> into memref<1x1x1x640xi8>
// CHECK-NEXT: call @accelerator(%[[X]], %[[A]])
// CHECK-NEXT: return
func.func private @accelerator(memref<1x1x1x640xi8>, memref<1x1x1x640xi8>)
func.func @collapsed(%x: memref<1x1x1x640xi8>, %out: memref<1x640xi8>) {
  %a = memref.alloc() : memref<1x1x1x640xi8>
  call @accelerator(%x, %a) : (memref<1x1x1x640xi8>, memref<1x1x1x640xi8>) -> ()
  %c = memref.collapse_shape %a [[0, 1, 2], [3]] : memref<1x1x1x640xi8> into memref<1x640xi8>
  memref.copy %c, %out : memref<1x640xi8> to memref<1x640xi8>
  return
}

// -----

// Through an expand: the argument collapsed back. Writes in a loop count as uses before the copy.
// CHECK-LABEL: func.func @expanded(
// CHECK-SAME: %{{.*}}: i8, %[[OUT:[^:]*]]: memref<1x2x4xi8>)
// CHECK-NEXT: %[[A:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0], [1, 2]] : memref<1x2x4xi8> into memref<1x8xi8>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK-NOT: memref.copy
func.func @expanded(%v: i8, %out: memref<1x2x4xi8>) {
  %a = memref.alloc() : memref<1x8xi8>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %v, %a[%c0, %i] : memref<1x8xi8>
  }
  %e = memref.expand_shape %a [[0], [1, 2]] output_shape [1, 2, 4] : memref<1x8xi8> into memref<1x2x4xi8>
  memref.copy %e, %out : memref<1x2x4xi8> to memref<1x2x4xi8>
  return
}

// -----

// A direct copy of a buffer: the buffer is the argument.
// CHECK-LABEL: func.func @direct(
// CHECK-SAME: %[[X:[^:]*]]: memref<8xi8>, %[[OUT:[^:]*]]: memref<8xi8>)
// CHECK-NEXT: call @fill(%[[X]], %[[OUT]])
// CHECK-NEXT: return
func.func private @fill(memref<8xi8>, memref<8xi8>)
func.func @direct(%x: memref<8xi8>, %out: memref<8xi8>) {
  %a = memref.alloc() : memref<8xi8>
  call @fill(%x, %a) : (memref<8xi8>, memref<8xi8>) -> ()
  memref.copy %a, %out : memref<8xi8> to memref<8xi8>
  return
}

// -----

// Kept: the buffer is read after the copy.
// CHECK-LABEL: func.func @read_after(
// CHECK: memref.alloc
// CHECK: memref.copy
// CHECK: call @fill
func.func private @fill(memref<8xi8>, memref<8xi8>)
func.func @read_after(%x: memref<8xi8>, %out: memref<8xi8>, %other: memref<8xi8>) {
  %a = memref.alloc() : memref<8xi8>
  call @fill(%x, %a) : (memref<8xi8>, memref<8xi8>) -> ()
  memref.copy %a, %out : memref<8xi8> to memref<8xi8>
  call @fill(%a, %other) : (memref<8xi8>, memref<8xi8>) -> ()
  return
}

// -----

// Kept: the argument is used besides the copy (read by the call), and a copy into a value that
// is no argument.
// CHECK-LABEL: func.func @argument_used(
// CHECK: memref.alloc
// CHECK: memref.copy
// CHECK-LABEL: func.func @into_a_buffer(
// CHECK: memref.copy
func.func private @fill(memref<8xi8>, memref<8xi8>)
func.func @argument_used(%out: memref<8xi8>) {
  %a = memref.alloc() : memref<8xi8>
  call @fill(%out, %a) : (memref<8xi8>, memref<8xi8>) -> ()
  memref.copy %a, %out : memref<8xi8> to memref<8xi8>
  return
}
func.func @into_a_buffer(%x: memref<8xi8>) -> memref<8xi8> {
  %a = memref.alloc() : memref<8xi8>
  %b = memref.alloc() : memref<8xi8>
  call @fill(%x, %a) : (memref<8xi8>, memref<8xi8>) -> ()
  memref.copy %a, %b : memref<8xi8> to memref<8xi8>
  return %b : memref<8xi8>
}
