// A small int8 TOSA model, written for umac's README example: a 3x3 convolution with bias,
// a per-channel rescale (TFLite-style int8 requantization, DOUBLE_ROUND) and a ReLU6-style clamp (the upper bound is 6.0 in the output scale),
// then a 2x2 max pool. Input 1x8x8x2 (int8, zero point -128), output 1x3x3x4 (int8, zero point -128).
module {
  func.func @main(%input: tensor<1x8x8x2xi8>) -> tensor<1x3x3x4xi8> {
    %weights = "tosa.const"() <{values = dense<[
      [[[1, -2], [3, 0], [-1, 2]], [[0, 1], [2, -3], [1, 1]], [[-2, 0], [1, 2], [0, -1]]],
      [[[2, 1], [0, -1], [1, 0]], [[-1, 2], [3, 1], [0, 0]], [[1, -1], [-2, 2], [1, 3]]],
      [[[0, 0], [1, 1], [-1, -1]], [[2, 2], [-2, -2], [3, 3]], [[-3, 1], [1, -3], [0, 2]]],
      [[[-1, 3], [2, -2], [0, 1]], [[1, 0], [0, 1], [-1, 2]], [[2, -2], [1, 1], [-1, 0]]]
    ]> : tensor<4x3x3x2xi8>}> : () -> tensor<4x3x3x2xi8>
    %bias = "tosa.const"() <{values = dense<[100, -50, 0, 25]> : tensor<4xi32>}> : () -> tensor<4xi32>
    %input_zp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
    %weight_zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %acc = tosa.conv2d %input, %weights, %bias, %input_zp, %weight_zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xi8>, tensor<4x3x3x2xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x6x4xi32>
    %multiplier = "tosa.const"() <{values = dense<[1518500250, 1073741824, 1276901417, 1859775393]> : tensor<4xi32>}> : () -> tensor<4xi32>
    %shift = "tosa.const"() <{values = dense<[38, 37, 38, 39]> : tensor<4xi8>}> : () -> tensor<4xi8>
    %acc_zp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %out_zp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
    %scaled = tosa.rescale %acc, %multiplier, %shift, %acc_zp, %out_zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x6x6x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x6x6x4xi8>
    %relu6 = tosa.clamp %scaled {max_val = 90 : i8, min_val = -128 : i8} : (tensor<1x6x6x4xi8>) -> tensor<1x6x6x4xi8>
    %pooled = tosa.max_pool2d %relu6 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x6x6x4xi8>) -> tensor<1x3x3x4xi8>
    return %pooled : tensor<1x3x3x4xi8>
  }
}
