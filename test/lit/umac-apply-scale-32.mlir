// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-apply-scale-32))' | FileCheck %s

// A per-channel rescale whose shifts (a dense constant the generic reads) are all 33 or more:
// the short form, on the two halves of the 32-bit product. (driver/tests/apply_scale.rs checks
// its values against the 64-bit definition.)
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @per_channel(
// CHECK-NOT: tosa.apply_scale
// CHECK: %[[LO:.*]], %[[HI:.*]] = arith.mulsi_extended %{{.*}}, %{{.*}} : i32
// CHECK: %[[S:.*]] = arith.extui %{{.*}} : i8 to i32
// CHECK: %[[T:.*]] = arith.subi %[[S]], %c32_i32 : i32
// CHECK: %[[BORROW:.*]] = arith.shrsi %{{.*}}, %c31_i32 : i32
// CHECK: %[[SIGN:.*]] = arith.andi %{{.*}}, %c-2147483648_i32 : i32
// CHECK: %[[RLO:.*]] = arith.ori %[[SIGN]], %c1073741824_i32 : i32
// CHECK: %[[T1:.*]] = arith.subi %[[T]], %c1_i32 : i32
// CHECK: %[[POW:.*]] = arith.shli %c1_i32, %[[T1]] : i32
// CHECK: %[[RHI:.*]] = arith.addi %[[POW]], %[[BORROW]] : i32
// CHECK: %[[TLO:.*]] = arith.addi %[[LO]], %[[RLO]] : i32
// CHECK: %[[CARRY:.*]] = arith.cmpi ult, %[[TLO]], %[[LO]] : i32
// CHECK: %[[C32:.*]] = arith.extui %[[CARRY]] : i1 to i32
// CHECK: %[[H:.*]] = arith.addi %[[HI]], %[[RHI]] : i32
// CHECK: %[[THI:.*]] = arith.addi %[[H]], %[[C32]] : i32
// CHECK: %[[R:.*]] = arith.shrsi %[[THI]], %[[T]] : i32
// CHECK: linalg.yield %[[R]] : i32
func.func @per_channel(%v: tensor<3xi32>) -> tensor<3xi32> {
  %m = arith.constant dense<[1359514674, 1510897544, -5]> : tensor<3xi32>
  %s = arith.constant dense<[37, 33, 62]> : tensor<3xi8>
  %e = tensor.empty() : tensor<3xi32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%v, %m, %s : tensor<3xi32>, tensor<3xi32>, tensor<3xi8>) outs(%e : tensor<3xi32>) {
  ^bb0(%x: i32, %mm: i32, %ss: i8, %o: i32):
    %y = tosa.apply_scale %x, %mm, %ss {rounding_mode = DOUBLE_ROUND} : (i32, i32, i8) -> i32
    linalg.yield %y : i32
  } -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// -----

// A shift of 32 (a scalar constant): the general form, which also handles the rounding carried
// by the low half alone (t = 0).
// CHECK-LABEL: func.func @shift_32(
// CHECK-NOT: tosa.apply_scale
// CHECK: arith.mulsi_extended
// CHECK: arith.cmpi eq, %{{.*}}, %c0_i32 : i32
// CHECK: arith.maxsi
// CHECK: arith.cmpi ult
// CHECK: return
func.func @shift_32(%v: i32, %m: i32) -> i32 {
  %s = arith.constant 32 : i8
  %y = tosa.apply_scale %v, %m, %s {rounding_mode = DOUBLE_ROUND} : (i32, i32, i8) -> i32
  return %y : i32
}

// -----

// Left to tosa-to-arith: a shift of 31, a shift not known at compile time, single rounding, and a
// 48-bit value (int16 models' accumulators).
// CHECK-LABEL: func.func @left_alone(
// CHECK-COUNT-4: tosa.apply_scale
// CHECK-NOT: arith.mulsi_extended
func.func @left_alone(%v: i32, %m: i32, %s: i8, %w: i48) -> (i32, i32, i32, i32) {
  %c31 = arith.constant 31 : i8
  %c40 = arith.constant 40 : i8
  %a = tosa.apply_scale %v, %m, %c31 {rounding_mode = DOUBLE_ROUND} : (i32, i32, i8) -> i32
  %b = tosa.apply_scale %v, %m, %s {rounding_mode = DOUBLE_ROUND} : (i32, i32, i8) -> i32
  %c = tosa.apply_scale %v, %m, %c40 {rounding_mode = SINGLE_ROUND} : (i32, i32, i8) -> i32
  %d = tosa.apply_scale %w, %m, %c40 {rounding_mode = DOUBLE_ROUND} : (i48, i32, i8) -> i32
  return %a, %b, %c, %d : i32, i32, i32, i32
}
