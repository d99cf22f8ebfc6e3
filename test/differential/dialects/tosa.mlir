// Tosa dialect: elementwise, reduction, reshape, convolution and matmul ops on ranked tensors.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --tosa-to-linalg-pipeline
// RUN: %compare %s --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor))"

func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tosa.maximum %0, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tosa.exp %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = tosa.clamp %2 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = tosa.reduce_sum %3 {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %4 : tensor<2x1xf32>
}

func.func @shapes(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %shape = tosa.const_shape {values = dense<[6]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %0 = tosa.reshape %a, %shape : (tensor<2x3xf32>, !tosa.shape<1>) -> tensor<6xf32>
  %1 = tosa.transpose %a {perms = array<i32: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

func.func @conv(%in: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>, %bias: tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %in, %w, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

func.func @matmul(%a: tensor<1x4x8xf32>, %b: tensor<1x8x2xf32>) -> tensor<1x4x2xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x2xf32>
  return %0 : tensor<1x4x2xf32>
}
