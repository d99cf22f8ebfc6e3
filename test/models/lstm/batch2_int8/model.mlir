module attributes {tf_saved_model.semantics, tfl.description = "MLIR Converted.", tfl.metadata = {CONVERSION_METADATA = "\0C\00\00\00\08\00\0E\00\08\00\04\00\08\00\00\00\10\00\00\00(\00\00\00\00\00\06\00\08\00\04\00\06\00\00\00\04\00\00\00\01\00\00\00\EB\03\00\00\0C\00\18\00\14\00\10\00\0C\00\04\00\0C\00\00\00E\09=\FCc\81\A9k\02\00\00\00\02\00\00\00\04\00\00\00\06\00\00\002.21.0\00\00", min_runtime_version = "1.14.0\00\00\00\00\00\00\00\00\00\00"}, tfl.schema_version = 3 : i32} {
  func.func @main(%arg0: tensor<2x9x4xi8> {tf_saved_model.index_path = ["input_3"]}) -> (tensor<2x3xi8> {tf_saved_model.index_path = ["dense_2"]}) attributes {tf.entry_function = {inputs = "serving_default_input_3:0", outputs = "StatefulPartitionedCall:0"}, tf_saved_model.exported_names = ["serving_default"]} {
    %0 = tosa.const_shape  {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %1 = "tosa.const"() <{values = dense<38> : tensor<3xi8>}> : () -> tensor<3xi8>
    %2 = "tosa.const"() <{values = dense<[1887761980, 1932773378, 1726332475]> : tensor<3xi32>}> : () -> tensor<3xi32>
    %3 = "tosa.const"() <{values = dense<12> : tensor<1xi8>}> : () -> tensor<1xi8>
    %4 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %5 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %6 = tosa.const_shape  {values = dense<[3, 1, 1, 5]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %7 = tosa.const_shape  {values = dense<[2, 1, 1, 5]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %8 = "tosa.const"() <{values = dense<[[-38, -68, -127, 106, -82], [30, 48, 127, 106, -34], [-69, 77, 103, -101, 127]]> : tensor<3x5xi8>}> : () -> tensor<3x5xi8>
    %9 = tosa.const_shape  {values = dense<[2, 1, 5]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %10 = tosa.const_shape  {values = dense<[0, 8, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %11 = "tfl.no_value"() <true> : () -> none
    %12 = "tosa.const"() <{values = dense<[[-84, -107, 10, 27], [-29, -96, 20, -4], [66, -72, -127, -73], [50, -91, -48, 70], [103, 118, 17, -64]]> : tensor<5x4xi8>}> : () -> tensor<5x4xi8>
    %13 = "tosa.const"() <{values = dense<[[-29, 94, 55, -9], [127, 88, -100, 102], [-116, -59, 0, 25], [78, 43, 6, 21], [106, 79, -75, -110]]> : tensor<5x4xi8>}> : () -> tensor<5x4xi8>
    %14 = "tosa.const"() <{values = dense<[[104, -75, -33, -109], [101, -113, 127, 27], [-102, -40, 115, 77], [-83, -50, 16, 101], [73, 26, 116, 7]]> : tensor<5x4xi8>}> : () -> tensor<5x4xi8>
    %15 = "tosa.const"() <{values = dense<[[0, -127, 106, -82], [32, -62, -27, 14], [-47, 108, -22, -114], [-47, 15, 75, 2], [66, -9, -123, 105]]> : tensor<5x4xi8>}> : () -> tensor<5x4xi8>
    %16 = "tosa.const"() <{values = dense<[[25, 55, -111, 24, 109], [91, 20, 45, 89, 46], [-17, 25, -52, 86, -42], [44, 87, 12, -77, -70], [83, -3, 127, 35, -90]]> : tensor<5x5xi8>}> : () -> tensor<5x5xi8>
    %17 = "tosa.const"() <{values = dense<[[-14, 4, -26, 18, -20], [78, 23, -5, -81, 95], [-30, 127, -7, -25, 31], [-6, -117, -45, -31, -20], [-15, -16, 78, 64, 103]]> : tensor<5x5xi8>}> : () -> tensor<5x5xi8>
    %18 = "tosa.const"() <{values = dense<[[-107, 27, 109, -33, -2], [-83, 47, -50, 89, -40], [-20, 113, 98, -23, -73], [3, 127, -37, 26, 43], [74, -27, 96, -92, 32]]> : tensor<5x5xi8>}> : () -> tensor<5x5xi8>
    %19 = "tosa.const"() <{values = dense<[[-39, -2, 41, -20, -46], [-91, -78, 52, 0, 79], [60, -60, -64, 30, -75], [65, 1, 51, 127, 23], [-92, 24, 0, 65, -35]]> : tensor<5x5xi8>}> : () -> tensor<5x5xi8>
    %20 = "tosa.const"() <{values = dense<0> : tensor<5xi32>}> : () -> tensor<5xi32>
    %21 = "tosa.const"() <{values = dense<10402> : tensor<5xi32>}> : () -> tensor<5xi32>
    %22 = "tosa.const"() <{values = dense<0> : tensor<5xi32>}> : () -> tensor<5xi32>
    %23 = "tosa.const"() <{values = dense<0> : tensor<5xi32>}> : () -> tensor<5xi32>
    %24 = "tosa.const"() <{values = dense<0> : tensor<2x5xi8>}> : () -> tensor<2x5xi8>
    %25 = "tosa.const"() <{values = dense<1> : tensor<2x5xi16>}> : () -> tensor<2x5xi16>
    %26 = "tfl.unidirectional_sequence_lstm"(%arg0, %12, %13, %14, %15, %16, %17, %18, %19, %11, %11, %11, %20, %21, %22, %23, %11, %11, %24, %25, %11, %11, %11, %11) <dense<0> : tensor<5xi32>> {umac.lstm = {cell_activation = "tanh", cell_clip = 1.000000e+01 : f32, cell_scale = 6.10351563E-5 : f32, hidden_scale = 0.00477280049 : f32, hidden_zero_point = 0 : i64, input_scale = 0.024469357 : f32, input_zero_point = 5 : i64, time_major = false, weight_scales = array<f32: 0.00378172332, 0.00392870652, 3.728830e-03, 0.00378123508, 0.0034505371, 0.00364472764, 0.00283270306, 0.00433938112>}} : (tensor<2x9x4xi8>, tensor<5x4xi8>, tensor<5x4xi8>, tensor<5x4xi8>, tensor<5x4xi8>, tensor<5x5xi8>, tensor<5x5xi8>, tensor<5x5xi8>, tensor<5x5xi8>, none, none, none, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, none, none, tensor<2x5xi8>, tensor<2x5xi16>, none, none, none, none) -> tensor<2x9x5xi8>
    %27 = tosa.slice %26, %10, %9 : (tensor<2x9x5xi8>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x1x5xi8>
    %28 = tosa.reshape %27, %7 : (tensor<2x1x5xi8>, !tosa.shape<4>) -> tensor<2x1x1x5xi8>
    %29 = tosa.reshape %8, %6 : (tensor<3x5xi8>, !tosa.shape<4>) -> tensor<3x1x1x5xi8>
    %30 = tosa.conv2d %28, %29, %5, %4, %4 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x1x1x5xi8>, tensor<3x1x1x5xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x1x1x3xi32>
    %31 = tosa.rescale %30, %2, %1, %5, %3 {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<2x1x1x3xi32>, tensor<3xi32>, tensor<3xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<2x1x1x3xi8>
    %32 = tosa.reshape %31, %0 : (tensor<2x1x1x3xi8>, !tosa.shape<2>) -> tensor<2x3xi8>
    return %32 : tensor<2x3xi8>
  }
}

