// umac-partition: composites of the named accelerators are outlined into
// func.func private @<target>_<n> {umac.target, umac.composite} and called where they were;
// constants are copied in; everything else stays for the CPU.
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets=vanilla})' | FileCheck %s
// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(umac-partition{targets="vanilla -dimension=2"})' | FileCheck %s --check-prefix=SMALL

// conv2d -> rescale -> clamp is one composite.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x8x4xi8>)
// CHECK-NOT: tosa.conv2d
// CHECK: %[[Y:.*]] = call @vanilla_0(%[[X]]) : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
// CHECK: return %[[Y]]
// CHECK: func.func private @vanilla_0(%[[A:.*]]: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> attributes {umac.composite = "vanilla.conv2d", umac.target = "vanilla"}
// CHECK-DAG: "tosa.const"() <{values = dense<3> : tensor<4x3x3x4xi8>}>
// CHECK-DAG: "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}>
// CHECK: %[[C:.*]] = tosa.conv2d %[[A]]
// CHECK: %[[R:.*]] = tosa.rescale %[[C]]
// CHECK: %[[K:.*]] = tosa.clamp %[[R]]
// CHECK: return %[[K]]
// A 3x3 kernel does not fit a 2x2 array: nothing is outlined.
// SMALL-LABEL: func.func @chain(
// SMALL: tosa.conv2d
// SMALL-NOT: func.func private
func.func @chain(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x3x4xi8>}> : () -> tensor<4x3x3x4xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x3x3x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k = tosa.clamp %r {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  return %k : tensor<1x8x8x4xi8>
}

// -----

// Optional ops: a bias add is taken, a conv without a rescale is a composite of its own
// (int32 result), and a rescale whose input has a second user is left out.
// CHECK-LABEL: func.func @optional(
// SMALL-LABEL: func.func @optional(
// CHECK: %[[T:.*]] = call @vanilla_0(%{{.*}}) : (tensor<1x4x4x2xi8>) -> tensor<1x4x4x2xi32>
// CHECK: tosa.rescale %[[T]]
// CHECK: tosa.abs %[[T]]
// CHECK: func.func private @vanilla_0({{.*}}) -> tensor<1x4x4x2xi32> attributes {umac.composite = "vanilla.conv2d", umac.target = "vanilla"}
// CHECK: tosa.conv2d
// CHECK: tosa.add
// CHECK-NOT: tosa.rescale
// CHECK: return
func.func @optional(%x: tensor<1x4x4x2xi8>) -> (tensor<1x4x4x2xi8>, tensor<1x4x4x2xi32>) {
  %w = "tosa.const"() <{values = dense<1> : tensor<2x1x1x2xi8>}> : () -> tensor<2x1x1x2xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %add = "tosa.const"() <{values = dense<[[[[5, 6]]]]> : tensor<1x1x1x2xi32>}> : () -> tensor<1x1x1x2xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  %t = tosa.add %c, %add : (tensor<1x4x4x2xi32>, tensor<1x1x1x2xi32>) -> tensor<1x4x4x2xi32>
  %r = tosa.rescale %t, %m, %s, %izp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x2xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x2xi8>
  %a = tosa.abs %t : (tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  return %r, %a : tensor<1x4x4x2xi8>, tensor<1x4x4x2xi32>
}

// -----

// Adjacent regions of one target merge (merge_compiler_regions): the second conv consumes the
// first. Each composite's result is returned, so its buffer is the caller's.
// CHECK-LABEL: func.func @merged(
// CHECK: %[[R:.*]]:2 = call @vanilla_0(%{{.*}}) : (tensor<1x4x4x2xi8>) -> (tensor<1x4x4x2xi8>, tensor<1x4x4x2xi32>)
// CHECK: return %[[R]]#1
// CHECK: func.func private @vanilla_0(
// CHECK-COUNT-2: tosa.conv2d
// CHECK-NOT: func.func private @vanilla_1
func.func @merged(%x: tensor<1x4x4x2xi8>) -> tensor<1x4x4x2xi32> {
  %w = "tosa.const"() <{values = dense<1> : tensor<2x1x1x2xi8>}> : () -> tensor<2x1x1x2xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  %r = tosa.rescale %c, %m, %s, %izp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x2xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x2xi8>
  %c2 = tosa.conv2d %r, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  return %c2 : tensor<1x4x4x2xi32>
}

// -----

// Siblings merge too: both convs read %x (constants do not count: each region copies its own).
// The CPU op between them reads the first conv's result, so it moves after the call.
// CHECK-LABEL: func.func @siblings(
// CHECK: %[[R:.*]]:2 = call @vanilla_0(%{{.*}}) : (tensor<1x4x4x2xi8>) -> (tensor<1x4x4x2xi32>, tensor<1x4x4x2xi32>)
// CHECK-NEXT: tosa.abs %[[R]]#0
// CHECK: func.func private @vanilla_0(
// CHECK-COUNT-2: tosa.conv2d
// CHECK-NOT: func.func private @vanilla_1
func.func @siblings(%x: tensor<1x4x4x2xi8>) -> (tensor<1x4x4x2xi32>, tensor<1x4x4x2xi32>) {
  %w = "tosa.const"() <{values = dense<1> : tensor<2x1x1x2xi8>}> : () -> tensor<2x1x1x2xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  %a = tosa.abs %c : (tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  %c2 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  return %a, %c2 : tensor<1x4x4x2xi32>, tensor<1x4x4x2xi32>
}

// -----

// Convs sharing only constants are not siblings: two functions.
// CHECK-LABEL: func.func @constants_only(
// CHECK: call @vanilla_0
// CHECK: call @vanilla_1
func.func @constants_only(%x: tensor<1x4x4x2xi8>, %y: tensor<1x4x4x2xi8>) -> (tensor<1x4x4x2xi32>, tensor<1x4x4x2xi32>) {
  %w = "tosa.const"() <{values = dense<1> : tensor<2x1x1x2xi8>}> : () -> tensor<2x1x1x2xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  %c2 = tosa.conv2d %y, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  return %c, %c2 : tensor<1x4x4x2xi32>, tensor<1x4x4x2xi32>
}

// -----

// The second conv, reached from the first through the CPU, stays apart from it (merged, the call
// would need its own result); the third, a sibling of the first through %x, joins the first.
// CHECK-LABEL: func.func @sibling_cycle(
// CHECK: %[[R:.*]]:2 = call @vanilla_0(%arg0)
// CHECK-NEXT: tosa.cast %[[R]]#0
// CHECK-NEXT: tosa.add
// CHECK-NEXT: %[[S:.*]] = call @vanilla_1(
// CHECK-NEXT: tosa.add %[[S]], %[[R]]#1
func.func @sibling_cycle(%x: tensor<1x4x4x2xi8>) -> tensor<1x4x4x2xi32> {
  %w = "tosa.const"() <{values = dense<1> : tensor<2x1x1x2xi8>}> : () -> tensor<2x1x1x2xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  %n = tosa.cast %c : (tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi8>
  %s = tosa.add %x, %n : (tensor<1x4x4x2xi8>, tensor<1x4x4x2xi8>) -> tensor<1x4x4x2xi8>
  %c2 = tosa.conv2d %s, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  %c3 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  %o = tosa.add %c2, %c3 : (tensor<1x4x4x2xi32>, tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  return %o : tensor<1x4x4x2xi32>
}

// -----

// No merge through ops of another target: two functions, the CPU ops between them (the int32
// clamp is the first composite's optional clamp).
// CHECK-LABEL: func.func @split(
// CHECK: call @vanilla_0
// CHECK-NEXT: tosa.abs
// CHECK-NEXT: tosa.rescale
// CHECK-NEXT: call @vanilla_1
// CHECK: func.func private @vanilla_0(
// CHECK: func.func private @vanilla_1(
func.func @split(%x: tensor<1x4x4x2xi8>) -> tensor<1x4x4x2xi32> {
  %w = "tosa.const"() <{values = dense<1> : tensor<2x1x1x2xi8>}> : () -> tensor<2x1x1x2xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  %k = tosa.clamp %c {max_val = 100 : i32, min_val = 0 : i32} : (tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  %d = tosa.abs %k : (tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  %r = tosa.rescale %d, %m, %s, %izp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x2xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x2xi8>
  %c2 = tosa.conv2d %r, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  return %c2 : tensor<1x4x4x2xi32>
}

// -----

// Rejections: every conv here fails one of vanilla's predicates and stays on the CPU.
// CHECK-LABEL: func.func @rejected(
// CHECK-NOT: call @vanilla
// CHECK-COUNT-4: tosa.conv2d
// CHECK-NOT: func.func private
func.func @rejected(%x: tensor<1x8x8x2xi8>, %y: tensor<?x8x8x2xi8>, %z: tensor<1x8x8x2xi16>) -> (tensor<1x4x4x2xi32>, tensor<1x3x3x2xi32>, tensor<?x8x8x2xi32>, tensor<1x8x8x2xi48>) {
  %w = "tosa.const"() <{values = dense<1> : tensor<2x3x3x2xi8>}> : () -> tensor<2x3x3x2xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %b48 = "tosa.const"() <{values = dense<0> : tensor<2xi48>}> : () -> tensor<2xi48>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp16 = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  // dilation 2
  %c0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xi8>, tensor<2x3x3x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  // stride 3
  %c1 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 3, 3>} : (tensor<1x8x8x2xi8>, tensor<2x3x3x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x3x2xi32>
  // a dynamic batch
  %c2 = tosa.conv2d %y, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x8x8x2xi8>, tensor<2x3x3x2xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<?x8x8x2xi32>
  // int16 activations
  %c3 = tosa.conv2d %z, %w, %b48, %zp16, %zp {acc_type = i48, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xi16>, tensor<2x3x3x2xi8>, tensor<2xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x8x8x2xi48>
  return %c0, %c1, %c2, %c3 : tensor<1x4x4x2xi32>, tensor<1x3x3x2xi32>, tensor<?x8x8x2xi32>, tensor<1x8x8x2xi48>
}
