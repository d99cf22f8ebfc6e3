// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-split-borders),canonicalize)' | FileCheck %s

// The output loops around a bounds-checked convolution split into border rows/columns (still
// checked) and an interior (rows [1,3) x columns [1,3)) where the check is gone.
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv3x3(
// Row 0 (its one-iteration loop folded away): columns 0, [1,3), 3, all checked.
// CHECK: scf.for %{{.*}} = %c1 to %c3 step
// CHECK: arith.cmpi ult
// Rows [1,3): column 0 checked, columns [1,3) unchecked, column 3 checked.
// CHECK: scf.for %{{.*}} = %c1 to %c3 step
// CHECK: arith.cmpi ult
// CHECK: scf.for %{{.*}} = %c1 to %c3 step
// CHECK-NOT: arith.select
// CHECK: memref.load %{{.*}} : memref<1x4x4x1xi8>
// CHECK-NOT: arith.select
// CHECK: linalg.yield
// CHECK: arith.cmpi ult
func.func @conv3x3(%x: memref<1x4x4x1xi8>, %w: memref<1x3x3x1xi8>, %y: memref<1x4x4x1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0 : i8
  scf.for %oh = %c0 to %c4 step %c1 {
    scf.for %ow = %c0 to %c4 step %c1 {
      %acc = memref.subview %y[0, %oh, %ow, 0] [1, 1, 1, 1] [1, 1, 1, 1] : memref<1x4x4x1xi32> to memref<1x1x1x1xi32, strided<[16, 4, 1, 1], offset: ?>>
      linalg.generic {indexing_maps = [#w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%w : memref<1x3x3x1xi8>) outs(%acc : memref<1x1x1x1xi32, strided<[16, 4, 1, 1], offset: ?>>)
        attrs = {umac.interior = array<i64: 1, 3, 1, 3>, umac.op = "conv_2d_nhwc_fhwc"} {
      ^bb0(%wv: i8, %out: i32):
        %kh = linalg.index 4 : index
        %kw = linalg.index 5 : index
        %ih = affine.apply affine_map<(a, b) -> (a + b - 1)>(%oh, %kh)
        %iw = affine.apply affine_map<(a, b) -> (a + b - 1)>(%ow, %kw)
        %h_in = arith.cmpi ult, %ih, %c4 : index
        %w_in = arith.cmpi ult, %iw, %c4 : index
        %in = arith.andi %h_in, %w_in : i1
        %ihc = arith.select %in, %ih, %c0 : index
        %iwc = arith.select %in, %iw, %c0 : index
        %v = memref.load %x[%c0, %ihc, %iwc, %c0] : memref<1x4x4x1xi8>
        %xv = arith.select %in, %v, %pad : i8
        %a = arith.extsi %xv : i8 to i32
        %b = arith.extsi %wv : i8 to i32
        %m = arith.muli %a, %b : i32
        %s = arith.addi %out, %m : i32
        linalg.yield %s : i32
      }
    }
  }
  return
}

// A pixel's 40 channels computed together (tiled by pixel for a vector CPU): the check is once per
// window element for a vector loop over them, so the loops stay whole and checked. (With 32 or
// fewer channels they are split.)
#xd = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d5, d6, d3, d4)>
#yd = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @whole_pixel(
// CHECK: scf.for %{{.*}} = %c0 to %c4 step
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c4 step
// CHECK-NOT: scf.for
// CHECK: arith.cmpi ult
// CHECK: arith.select
func.func @whole_pixel(%x: memref<1x4x4x40xi8>, %w: memref<3x3x40x1xi8>, %y: memref<1x4x4x40x1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0 : i8
  scf.for %oh = %c0 to %c4 step %c1 {
    scf.for %ow = %c0 to %c4 step %c1 {
      %acc = memref.subview %y[0, %oh, %ow, 0, 0] [1, 1, 1, 40, 1] [1, 1, 1, 1, 1] : memref<1x4x4x40x1xi32> to memref<1x1x1x40x1xi32, strided<[640, 160, 40, 1, 1], offset: ?>>
      linalg.generic {indexing_maps = [#xd, #yd], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
        ins(%w : memref<3x3x40x1xi8>) outs(%acc : memref<1x1x1x40x1xi32, strided<[640, 160, 40, 1, 1], offset: ?>>)
        attrs = {umac.interior = array<i64: 1, 3, 1, 3>, umac.op = "depthwise_conv_2d_nhwc_hwcm"} {
      ^bb0(%wv: i8, %out: i32):
        %c = linalg.index 3 : index
        %kh = linalg.index 5 : index
        %kw = linalg.index 6 : index
        %ih = affine.apply affine_map<(a, b) -> (a + b - 1)>(%oh, %kh)
        %iw = affine.apply affine_map<(a, b) -> (a + b - 1)>(%ow, %kw)
        %h_in = arith.cmpi ult, %ih, %c4 : index
        %w_in = arith.cmpi ult, %iw, %c4 : index
        %in = arith.andi %h_in, %w_in : i1
        %ihc = arith.select %in, %ih, %c0 : index
        %iwc = arith.select %in, %iw, %c0 : index
        %v = memref.load %x[%c0, %ihc, %iwc, %c] : memref<1x4x4x40xi8>
        %xv = arith.select %in, %v, %pad : i8
        %a = arith.extsi %xv : i8 to i32
        %b = arith.extsi %wv : i8 to i32
        %m = arith.muli %a, %b : i32
        %s = arith.addi %out, %m : i32
        linalg.yield %s : i32
      }
    }
  }
  return
}
