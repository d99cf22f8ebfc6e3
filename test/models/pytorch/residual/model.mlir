module attributes {tf_saved_model.semantics, tosa.description = "TOSA FBS Converted", tosa.fbs_version = "1.0.0"} {
  func.func @main(%arg0: tensor<1x8x12x12xi8> {tf_saved_model.index_path = ["input_0"], tosa.tensor_name = "quantized_decomposed_quantize_per_tensor_default"}) -> (tensor<1x8x6x6xi8> {tf_saved_model.index_path = ["output_0"], tosa.tensor_name = "tosa_transpose_default_3"}) attributes {tf.entry_function = {inputs = "tosa_deserialized_input_0:0", outputs = "tosa_deserialized_output_0:0"}, tf_saved_model.exported_names = ["tosa_deserialized"]} {
    %0 = "tosa.const"() <{values = dense<[[[[-127], [85], [-83], [-95], [127], [56], [127], [63]], [[42], [-21], [115], [-127], [-121], [13], [-100], [110]], [[40], [26], [105], [23], [-106], [49], [19], [-106]]], [[[-28], [-87], [-42], [42], [-63], [-42], [61], [-127]], [[-9], [-127], [-54], [-48], [56], [88], [45], [-82]], [[-24], [-59], [-127], [91], [104], [71], [-6], [95]]], [[[-18], [55], [-80], [-90], [-16], [127], [114], [-81]], [[36], [7], [-42], [76], [78], [23], [124], [-25]], [[-118], [-110], [64], [-107], [-123], [-107], [-81], [124]]]]> : tensor<3x3x8x1xi8>}> : () -> tensor<3x3x8x1xi8>
    %1 = "tosa.const"() <{values = dense<[4384, 4421, -3837, 2795, -1298, -177, 2474, -604]> : tensor<8xi32>}> : () -> tensor<8xi32>
    %2 = "tosa.const"() <{values = dense<[[[[-69, -44, 20, 127, 16, -18, -73, -53]]], [[[-127, -97, -114, -99, -125, -40, 57, 34]]], [[[36, -5, 48, -127, -124, 119, -120, -87]]], [[[-63, -127, -89, 63, 33, -11, 36, 40]]], [[[86, 16, 57, -13, 74, 2, 127, 18]]], [[[27, -109, -127, 34, 73, -117, 112, -54]]], [[[-62, -15, 58, -58, 127, -94, -81, 101]]], [[[101, 122, 18, 50, -94, -53, -127, 31]]]]> : tensor<8x1x1x8xi8>}> : () -> tensor<8x1x1x8xi8>
    %3 = "tosa.const"() <{values = dense<[-8164, -7487, -12044, -6573, 4510, -1279, 1637, -3960]> : tensor<8xi32>}> : () -> tensor<8xi32>
    %4 = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
    %5 = "tosa.const"() <{values = dense<11> : tensor<1xi8>}> : () -> tensor<1xi8>
    %6 = "tosa.const"() <{values = dense<-8> : tensor<1xi8>}> : () -> tensor<1xi8>
    %7 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %8 = tosa.rescale %arg0, %4, %5, %6, %7 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x12x12xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x8x12x12xi32>
    %9 = tosa.transpose %arg0 {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x8x12x12xi8>) -> tensor<1x12x12x8xi8>
    %10 = "tosa.const"() <{values = dense<-8> : tensor<1xi8>}> : () -> tensor<1xi8>
    %11 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %12 = tosa.depthwise_conv2d %9, %0, %1, %10, %11 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x12x12x8xi8>, tensor<3x3x8x1xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x12x12x8xi32>
    %13 = "tosa.const"() <{values = dense<[1946649361, 1880890063, 1547468597, 1692778798, 1749276074, 1948079344, 2000052013, 1718277251]> : tensor<8xi32>}> : () -> tensor<8xi32>
    %14 = "tosa.const"() <{values = dense<38> : tensor<8xi8>}> : () -> tensor<8xi8>
    %15 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %16 = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
    %17 = tosa.rescale %12, %13, %14, %15, %16 {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x12x12x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x12x12x8xi8>
    %18 = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
    %19 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %20 = tosa.conv2d %17, %2, %3, %18, %19 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x12x12x8xi8>, tensor<8x1x1x8xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x12x12x8xi32>
    %21 = "tosa.const"() <{values = dense<[1327286193, 1361856228, 1873981631, 1234974149, 1138132225, 1239214948, 1304784098, 1672814041]> : tensor<8xi32>}> : () -> tensor<8xi32>
    %22 = "tosa.const"() <{values = dense<[39, 39, 40, 39, 39, 39, 39, 40]> : tensor<8xi8>}> : () -> tensor<8xi8>
    %23 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %24 = "tosa.const"() <{values = dense<29> : tensor<1xi8>}> : () -> tensor<1xi8>
    %25 = tosa.rescale %20, %21, %22, %23, %24 {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x12x12x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x12x12x8xi8>
    %26 = tosa.transpose %25 {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x12x12x8xi8>) -> tensor<1x8x12x12xi8>
    %27 = "tosa.const"() <{values = dense<1721141277> : tensor<1xi32>}> : () -> tensor<1xi32>
    %28 = "tosa.const"() <{values = dense<13> : tensor<1xi8>}> : () -> tensor<1xi8>
    %29 = "tosa.const"() <{values = dense<29> : tensor<1xi8>}> : () -> tensor<1xi8>
    %30 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %31 = tosa.rescale %26, %27, %28, %29, %30 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x12x12xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x8x12x12xi32>
    %32 = tosa.add %8, %31 : (tensor<1x8x12x12xi32>, tensor<1x8x12x12xi32>) -> tensor<1x8x12x12xi32>
    %33 = "tosa.const"() <{values = dense<1969444966> : tensor<1xi32>}> : () -> tensor<1xi32>
    %34 = "tosa.const"() <{values = dense<50> : tensor<1xi8>}> : () -> tensor<1xi8>
    %35 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %36 = "tosa.const"() <{values = dense<12> : tensor<1xi8>}> : () -> tensor<1xi8>
    %37 = tosa.rescale %32, %33, %34, %35, %36 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x12x12xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x12x12xi8>
    %38 = tosa.transpose %37 {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x8x12x12xi8>) -> tensor<1x12x12x8xi8>
    %39 = tosa.max_pool2d %38 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x12x12x8xi8>) -> tensor<1x6x6x8xi8>
    %40 = tosa.transpose %39 {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x6x6x8xi8>) -> tensor<1x8x6x6xi8>
    return %40 : tensor<1x8x6x6xi8>
  }
}

