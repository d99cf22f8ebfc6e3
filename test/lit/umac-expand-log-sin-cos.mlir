// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-expand-log-sin-cos))' | FileCheck %s

// log on f32: frexp in the integers (a subnormal or zero, its magnitude's bits below 2^23,
// converted from those bits as |x| 2^149 and its exponent lowered by 149 more: Helium flushes
// subnormal operands), the mantissa moved to [sqrt(1/2), sqrt(2)), t = m - 1, t^3 P(t) by
// Horner's rule from the highest coefficient, - t^2/2, + t, + e ln2 in two parts; then, from the
// bits, inf for inf, NaN above it (unsigned: negatives and NaN), -inf for +-0 (the only exponent
// field 0 left).
// CHECK-LABEL: func.func @log(
// CHECK-SAME: %[[X:[a-z0-9]+]]: f32
// CHECK-NOT: math.log
// CHECK: %[[XBITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: arith.constant 2147483647 : i32
// CHECK: %[[MAGNITUDE:.*]] = arith.andi %[[XBITS]]
// CHECK: arith.constant 8388608 : i32
// CHECK: %[[SUB:.*]] = arith.cmpi ult, %[[MAGNITUDE]], %{{.*}} : i32
// CHECK: arith.sitofp %[[MAGNITUDE]] : i32 to f32
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[EXPONENT:.*]] = arith.shrui %[[BITS]], %{{.*}} : i32
// CHECK: %[[BIASED:.*]] = arith.andi %[[EXPONENT]]
// CHECK: arith.constant 126 : i32
// CHECK: arith.constant 275 : i32
// CHECK: arith.select %[[SUB]]
// CHECK: arith.constant 8388607 : i32
// CHECK: arith.constant 1056964608 : i32
// CHECK: %[[M:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.constant 0.707106769 : f32
// CHECK: arith.cmpf olt, %[[M]]
// CHECK: arith.constant 0.0703768358 : f32
// CHECK: arith.constant 0.333333313 : f32
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.constant -2.12194442E-4 : f32
// CHECK: arith.constant -5.000000e-01 : f32
// CHECK: arith.constant 0.693359375 : f32
// CHECK: %[[INF_BITS:.*]] = arith.constant 2139095040 : i32
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: arith.cmpi eq, %[[XBITS]], %[[INF_BITS]] : i32
// CHECK: arith.cmpi ugt, %[[XBITS]], %[[INF_BITS]] : i32
// CHECK: arith.constant 0x7FC00000 : f32
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[BIASED]], %{{.*}} : i32
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[R:.*]] = arith.select %[[ZERO]], %[[NEG_INF]], %{{.*}} : f32
// CHECK: return %[[R]]
func.func @log(%x: f32) -> f32 {
  %y = math.log %x : f32
  return %y : f32
}

// sin on vectors: |x| reduced by pi/4 (above 2^24 - 1, inf and NaN on 0), j = trunc(|x| 4/pi)
// made even, r = |x| - j pi/4 in three parts, bit 1 of j picks the cosine polynomial, bit 2 of
// j and x's sign flip the result's sign bit; NaN for inf and NaN.
// CHECK-LABEL: func.func @sin(
// CHECK-SAME: %[[X:[a-z0-9]+]]: vector<4xf32>
// CHECK-NOT: math.sin
// CHECK: %[[A:.*]] = math.absf %[[X]] : vector<4xf32>
// CHECK: arith.constant dense<0x4B7FFFFF> : vector<4xf32>
// CHECK: %[[REDUCED:.*]] = arith.cmpf ole, %[[A]], %{{.*}} : vector<4xf32>
// CHECK: arith.constant dense<1.27323949> : vector<4xf32>
// CHECK: %[[T:.*]] = arith.fptosi %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK: %[[ODD:.*]] = arith.andi %[[T]], %{{.*}} : vector<4xi32>
// CHECK: %[[J:.*]] = arith.addi %[[T]], %[[ODD]] : vector<4xi32>
// CHECK: arith.constant dense<0.78515625> : vector<4xf32>
// CHECK: arith.constant dense<2.41875648E-4> : vector<4xf32>
// CHECK: arith.constant dense<3.77489506E-8> : vector<4xf32>
// CHECK: arith.constant dense<-1.95152956E-4> : vector<4xf32>
// CHECK: arith.constant dense<2.44331568E-5> : vector<4xf32>
// CHECK: arith.andi %[[J]], %{{.*}} : vector<4xi32>
// CHECK: %[[OTHER:.*]] = arith.cmpi ne
// CHECK: arith.select %[[OTHER]], %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK: arith.constant dense<29> : vector<4xi32>
// CHECK: arith.bitcast %[[X]] : vector<4xf32> to vector<4xi32>
// CHECK: arith.constant dense<-2147483648> : vector<4xi32>
// CHECK: arith.xori
// CHECK: arith.xori
// CHECK: arith.select %[[REDUCED]]
// CHECK: %[[INVALID:.*]] = arith.cmpf ueq, %[[A]], %{{.*}} : vector<4xf32>
// CHECK: arith.constant dense<0x7FC00000> : vector<4xf32>
// CHECK: %[[R:.*]] = arith.select %[[INVALID]]
// CHECK: return %[[R]]
func.func @sin(%x: vector<4xf32>) -> vector<4xf32> {
  %y = math.sin %x : vector<4xf32>
  return %y : vector<4xf32>
}

// cos: the same reduction; the sine polynomial where bit 1 of j is set, the sign from bit 2 of
// j + 2 (not x's).
// CHECK-LABEL: func.func @cos(
// CHECK-SAME: %[[X:[a-z0-9]+]]: f32
// CHECK-NOT: math.cos
// CHECK: arith.fptosi
// CHECK: %[[J:.*]] = arith.addi
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: arith.andi %[[J]], %[[TWO]] : i32
// CHECK: arith.addi %[[J]], %[[TWO]] : i32
// CHECK-NOT: arith.bitcast %[[X]]
// CHECK: arith.xori
// CHECK: arith.cmpf ueq
// CHECK: return
func.func @cos(%x: f32) -> f32 {
  %y = math.cos %x : f32
  return %y : f32
}

// Other types are left to the lowering.
// CHECK-LABEL: func.func @f64(
// CHECK: math.log %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f64
func.func @f64(%x: f64) -> f64 {
  %y = math.log %x : f64
  %z = math.sin %y : f64
  return %z : f64
}
