// umac-elide-slice-copies: a buffer copied whole into a contiguous part of another buffer (a
// concat's operand) becomes a view of that part: what writes it writes the concat's buffer, and
// nothing is copied.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-elide-slice-copies)' | FileCheck %s

// A concat of three calls' results along channels of one pixel (a fully connected layer in
// slices): each buffer is a view of the concat's at its part's byte offset, the concat's buffer is
// allocated before them, and no copy is left.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[X:[^:]*]]: memref<1x1x1x640xi8>
// CHECK-NEXT: %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x1x1x128xi8>
// CHECK-NEXT: %[[F0:.*]] = memref.collapse_shape %[[C]] {{\[}}[0, 1, 2, 3]] : memref<1x1x1x128xi8> into memref<128xi8>
// CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[F0]][%[[S0]]][] : memref<128xi8> to memref<1x1x1x48xi8>
// CHECK-NEXT: call @slice48(%[[X]], %[[A]])
// CHECK-NEXT: %[[F1:.*]] = memref.collapse_shape %[[C]]
// CHECK-NEXT: %[[S1:.*]] = arith.constant 48 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %[[F1]][%[[S1]]][] : memref<128xi8> to memref<1x1x1x48xi8>
// CHECK-NEXT: call @slice48(%[[X]], %[[B]])
// CHECK-NEXT: %[[F2:.*]] = memref.collapse_shape %[[C]]
// CHECK-NEXT: %[[S2:.*]] = arith.constant 96 : index
// CHECK-NEXT: %[[D:.*]] = memref.view %[[F2]][%[[S2]]][] : memref<128xi8> to memref<1x1x1x32xi8>
// CHECK-NEXT: call @slice32(%[[X]], %[[D]])
// CHECK-NEXT: call @use(%[[C]])
// CHECK-NEXT: return
func.func private @slice48(memref<1x1x1x640xi8>, memref<1x1x1x48xi8>)
func.func private @slice32(memref<1x1x1x640xi8>, memref<1x1x1x32xi8>)
func.func private @use(memref<1x1x1x128xi8>)
func.func @concat(%x: memref<1x1x1x640xi8>) {
  %a = memref.alloc() : memref<1x1x1x48xi8>
  call @slice48(%x, %a) : (memref<1x1x1x640xi8>, memref<1x1x1x48xi8>) -> ()
  %b = memref.alloc() : memref<1x1x1x48xi8>
  call @slice48(%x, %b) : (memref<1x1x1x640xi8>, memref<1x1x1x48xi8>) -> ()
  %d = memref.alloc() : memref<1x1x1x32xi8>
  call @slice32(%x, %d) : (memref<1x1x1x640xi8>, memref<1x1x1x32xi8>) -> ()
  %c = memref.alloc() {alignment = 64 : i64} : memref<1x1x1x128xi8>
  %s0 = memref.subview %c[0, 0, 0, 0] [1, 1, 1, 48] [1, 1, 1, 1] : memref<1x1x1x128xi8> to memref<1x1x1x48xi8, strided<[128, 128, 128, 1]>>
  memref.copy %a, %s0 : memref<1x1x1x48xi8> to memref<1x1x1x48xi8, strided<[128, 128, 128, 1]>>
  %s1 = memref.subview %c[0, 0, 0, 48] [1, 1, 1, 48] [1, 1, 1, 1] : memref<1x1x1x128xi8> to memref<1x1x1x48xi8, strided<[128, 128, 128, 1], offset: 48>>
  memref.copy %b, %s1 : memref<1x1x1x48xi8> to memref<1x1x1x48xi8, strided<[128, 128, 128, 1], offset: 48>>
  %s2 = memref.subview %c[0, 0, 0, 96] [1, 1, 1, 32] [1, 1, 1, 1] : memref<1x1x1x128xi8> to memref<1x1x1x32xi8, strided<[128, 128, 128, 1], offset: 96>>
  memref.copy %d, %s2 : memref<1x1x1x32xi8> to memref<1x1x1x32xi8, strided<[128, 128, 128, 1], offset: 96>>
  call @use(%c) : (memref<1x1x1x128xi8>) -> ()
  return
}

// -----

// Into the function's output argument through a reshape (a model's result): views of the
// argument, the reshape gone with the subviews. Rows of a batch of one are parts too.
// CHECK-LABEL: func.func @output(
// CHECK-SAME: %[[X:[^:]*]]: memref<1x640xi8>, %[[OUT:[^:]*]]: memref<1x2x256xi8>)
// CHECK-NEXT: %[[F0:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1, 2]] : memref<1x2x256xi8> into memref<512xi8>
// CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[F0]][%[[S0]]][] : memref<512xi8> to memref<1x1x256xi8>
// CHECK-NEXT: call @row(%[[X]], %[[A]])
// CHECK: %[[S1:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %{{.*}}[%[[S1]]][] : memref<512xi8> to memref<1x1x256xi8>
// CHECK-NEXT: call @row(%[[X]], %[[B]])
// CHECK-NEXT: return
func.func private @row(memref<1x640xi8>, memref<1x1x256xi8>)
func.func @output(%x: memref<1x640xi8>, %out: memref<1x2x256xi8>) {
  %a = memref.alloc() : memref<1x1x256xi8>
  call @row(%x, %a) : (memref<1x640xi8>, memref<1x1x256xi8>) -> ()
  %b = memref.alloc() : memref<1x1x256xi8>
  call @row(%x, %b) : (memref<1x640xi8>, memref<1x1x256xi8>) -> ()
  %e = memref.expand_shape %out [[0], [1], [2, 3]] output_shape [1, 2, 1, 256] : memref<1x2x256xi8> into memref<1x2x1x256xi8>
  %s0 = memref.subview %e[0, 0, 0, 0] [1, 1, 1, 256] [1, 1, 1, 1] : memref<1x2x1x256xi8> to memref<1x1x256xi8, strided<[512, 256, 1]>>
  memref.copy %a, %s0 : memref<1x1x256xi8> to memref<1x1x256xi8, strided<[512, 256, 1]>>
  %s1 = memref.subview %e[0, 1, 0, 0] [1, 1, 1, 256] [1, 1, 1, 1] : memref<1x2x1x256xi8> to memref<1x1x256xi8, strided<[512, 256, 1], offset: 256>>
  memref.copy %b, %s1 : memref<1x1x256xi8> to memref<1x1x256xi8, strided<[512, 256, 1], offset: 256>>
  return
}

// -----

// Kept: a channel slice of several pixels is no run of bytes (each pixel's channels are 64 bytes
// apart); a part at 8 bytes is off the 16-byte alignment (the part at 0 is a view).
// CHECK-LABEL: func.func @strided(
// CHECK: memref.copy
// CHECK-LABEL: func.func @unaligned(
// CHECK: memref.view %{{.*}} : memref<16xi8> to memref<1x8xi8>
// CHECK-NOT: memref.view
// CHECK: memref.copy %{{.*}} : memref<1x8xi8> to memref<1x8xi8, strided<[16, 1], offset: 8>>
func.func private @pixels(memref<1x2x2x32xi8>)
func.func private @eight(memref<1x8xi8>)
func.func private @use64(memref<1x2x2x64xi8>)
func.func private @use16(memref<1x16xi8>)
func.func @strided() {
  %a = memref.alloc() : memref<1x2x2x32xi8>
  call @pixels(%a) : (memref<1x2x2x32xi8>) -> ()
  %c = memref.alloc() : memref<1x2x2x64xi8>
  %s = memref.subview %c[0, 0, 0, 32] [1, 2, 2, 32] [1, 1, 1, 1] : memref<1x2x2x64xi8> to memref<1x2x2x32xi8, strided<[256, 128, 64, 1], offset: 32>>
  memref.copy %a, %s : memref<1x2x2x32xi8> to memref<1x2x2x32xi8, strided<[256, 128, 64, 1], offset: 32>>
  call @use64(%c) : (memref<1x2x2x64xi8>) -> ()
  return
}
func.func @unaligned() {
  %a = memref.alloc() : memref<1x8xi8>
  call @eight(%a) : (memref<1x8xi8>) -> ()
  %b = memref.alloc() : memref<1x8xi8>
  call @eight(%b) : (memref<1x8xi8>) -> ()
  %c = memref.alloc() : memref<1x16xi8>
  %s0 = memref.subview %c[0, 0] [1, 8] [1, 1] : memref<1x16xi8> to memref<1x8xi8, strided<[16, 1]>>
  memref.copy %a, %s0 : memref<1x8xi8> to memref<1x8xi8, strided<[16, 1]>>
  %s1 = memref.subview %c[0, 8] [1, 8] [1, 1] : memref<1x16xi8> to memref<1x8xi8, strided<[16, 1], offset: 8>>
  memref.copy %b, %s1 : memref<1x8xi8> to memref<1x8xi8, strided<[16, 1], offset: 8>>
  call @use16(%c) : (memref<1x16xi8>) -> ()
  return
}

// -----

// Kept: the part's bytes are read before the copy (the buffer would overwrite them sooner); the
// buffer is read after the copy; a buffer of i32 elements (memref.view views i8 buffers).
// CHECK-LABEL: func.func @read_before(
// CHECK: memref.copy
// CHECK-LABEL: func.func @read_after(
// CHECK: memref.copy
// CHECK-LABEL: func.func @wide(
// CHECK: memref.copy
func.func private @fill(memref<1x16xi8>)
func.func private @read(memref<1x16xi8>)
func.func private @fill32(memref<1x16xi32>)
func.func private @use32(memref<1x32xi32>)
func.func @read_before(%out: memref<1x32xi8>) {
  %a = memref.alloc() : memref<1x16xi8>
  call @fill(%a) : (memref<1x16xi8>) -> ()
  %s = memref.subview %out[0, 16] [1, 16] [1, 1] : memref<1x32xi8> to memref<1x16xi8, strided<[32, 1], offset: 16>>
  %c = memref.alloc() : memref<1x16xi8>
  memref.copy %s, %c : memref<1x16xi8, strided<[32, 1], offset: 16>> to memref<1x16xi8>
  call @read(%c) : (memref<1x16xi8>) -> ()
  memref.copy %a, %s : memref<1x16xi8> to memref<1x16xi8, strided<[32, 1], offset: 16>>
  return
}
func.func @read_after(%out: memref<1x32xi8>) {
  %a = memref.alloc() : memref<1x16xi8>
  call @fill(%a) : (memref<1x16xi8>) -> ()
  %s = memref.subview %out[0, 16] [1, 16] [1, 1] : memref<1x32xi8> to memref<1x16xi8, strided<[32, 1], offset: 16>>
  memref.copy %a, %s : memref<1x16xi8> to memref<1x16xi8, strided<[32, 1], offset: 16>>
  call @read(%a) : (memref<1x16xi8>) -> ()
  return
}
func.func @wide(%out: memref<1x32xi32>) {
  %a = memref.alloc() : memref<1x16xi32>
  call @fill32(%a) : (memref<1x16xi32>) -> ()
  %s = memref.subview %out[0, 16] [1, 16] [1, 1] : memref<1x32xi32> to memref<1x16xi32, strided<[32, 1], offset: 16>>
  memref.copy %a, %s : memref<1x16xi32> to memref<1x16xi32, strided<[32, 1], offset: 16>>
  call @use32(%out) : (memref<1x32xi32>) -> ()
  return
}
