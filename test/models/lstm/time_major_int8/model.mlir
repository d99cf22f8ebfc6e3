module attributes {tf_saved_model.semantics, tfl.description = "MLIR Converted.", tfl.metadata = {CONVERSION_METADATA = "\0C\00\00\00\08\00\0E\00\08\00\04\00\08\00\00\00\10\00\00\00(\00\00\00\00\00\06\00\08\00\04\00\06\00\00\00\04\00\00\00\01\00\00\00\EB\03\00\00\0C\00\18\00\14\00\10\00\0C\00\04\00\0C\00\00\00\C0\B7E\8E\22\8A\D4\85\02\00\00\00\02\00\00\00\04\00\00\00\06\00\00\002.21.0\00\00", min_runtime_version = "2.0.0\00\00\00\00\00\00\00\00\00\00\00"}, tfl.schema_version = 3 : i32} {
  func.func @main(%arg0: tensor<7x2x5xi8> {tf_saved_model.index_path = ["input_1"]}) -> (tensor<7x2x3xi8> {tf_saved_model.index_path = ["dense"]}) attributes {tf.entry_function = {inputs = "serving_default_input_1:0", outputs = "StatefulPartitionedCall:0"}, tf_saved_model.exported_names = ["serving_default"]} {
    %0 = tosa.const_shape  {values = dense<[7, 2, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %1 = "tosa.const"() <{values = dense<[38, 38, 37]> : tensor<3xi8>}> : () -> tensor<3xi8>
    %2 = "tosa.const"() <{values = dense<[1785906235, 2004508050, 1352250260]> : tensor<3xi32>}> : () -> tensor<3xi32>
    %3 = "tosa.const"() <{values = dense<21> : tensor<1xi8>}> : () -> tensor<1xi8>
    %4 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %5 = "tosa.const"() <{values = dense<2> : tensor<1xi8>}> : () -> tensor<1xi8>
    %6 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %7 = tosa.const_shape  {values = dense<[3, 1, 1, 6]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %8 = tosa.const_shape  {values = dense<[14, 1, 1, 6]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %9 = "tosa.const"() <{values = dense<[[84, -2, 30, -82, 127, -34], [17, -127, -39, -96, 27, -76], [-122, -127, -40, -35, -18, -71]]> : tensor<3x6xi8>}> : () -> tensor<3x6xi8>
    %10 = "tfl.no_value"() <"tf_saved_model.semantics"> : () -> none
    %11 = "tosa.const"() <{values = dense<[[10, 111, 13, 92, -26], [-18, 5, -46, 59, 44], [80, -127, -104, -90, 105], [-85, -30, 48, -5, -71], [-1, -72, 105, -79, -22], [-32, -26, -82, -92, -81]]> : tensor<6x5xi8>}> : () -> tensor<6x5xi8>
    %12 = "tosa.const"() <{values = dense<[[37, 53, -57, -121, 34], [-35, 101, 24, 104, 104], [-98, -42, 15, -63, 97], [53, -102, 24, -69, 20], [127, -20, 75, -55, 105], [15, -51, 125, -74, 126]]> : tensor<6x5xi8>}> : () -> tensor<6x5xi8>
    %13 = "tosa.const"() <{values = dense<[[36, -94, 35, 34, -85], [-89, 58, -114, 0, 118], [-49, 59, 15, -48, -57], [-57, -100, 4, -20, -14], [36, 110, -62, -72, 23], [98, 52, -127, 104, -87]]> : tensor<6x5xi8>}> : () -> tensor<6x5xi8>
    %14 = "tosa.const"() <{values = dense<[[44, -81, -116, 29, 113], [8, 33, 66, -70, 39], [-103, 33, -83, -53, 124], [-127, 102, -101, -26, 45], [98, 68, -13, -6, 92], [67, 127, 74, -82, 46]]> : tensor<6x5xi8>}> : () -> tensor<6x5xi8>
    %15 = "tosa.const"() <{values = dense<[[47, -9, -90, -86, -78, -109], [-2, 52, -40, 127, -21, -7], [-64, 1, -40, -23, 84, -107], [5, -94, 31, -25, -35, -78], [35, -45, 6, 15, -8, -70], [49, 73, -48, 57, 24, -71]]> : tensor<6x6xi8>}> : () -> tensor<6x6xi8>
    %16 = "tosa.const"() <{values = dense<[[105, 60, 69, 4, -35, -61], [122, -3, 52, -21, 65, 50], [-52, 14, 98, -45, 57, -4], [14, -43, 16, 20, -65, 4], [2, -127, 25, 84, -38, -57], [-68, 82, 61, -27, -26, -24]]> : tensor<6x6xi8>}> : () -> tensor<6x6xi8>
    %17 = "tosa.const"() <{values = dense<[[48, -31, -72, -29, -76, -6], [0, -31, -47, 80, 11, 18], [-67, -96, 93, -44, -58, 13], [-1, -34, -12, 11, 127, -126], [-35, 34, 74, -72, -50, -51], [-102, 23, -99, 25, 26, 43]]> : tensor<6x6xi8>}> : () -> tensor<6x6xi8>
    %18 = "tosa.const"() <{values = dense<[[48, 71, -6, 23, -35, -41], [-44, 78, 60, 58, -39, -76], [20, 42, -34, -82, 1, 18], [-21, -13, -75, -106, 15, -48], [52, -29, 36, 1, 127, -18], [66, -4, -4, -46, -26, 42]]> : tensor<6x6xi8>}> : () -> tensor<6x6xi8>
    %19 = "tosa.const"() <{values = dense<0> : tensor<6xi32>}> : () -> tensor<6xi32>
    %20 = "tosa.const"() <{values = dense<11545> : tensor<6xi32>}> : () -> tensor<6xi32>
    %21 = "tosa.const"() <{values = dense<0> : tensor<6xi32>}> : () -> tensor<6xi32>
    %22 = "tosa.const"() <{values = dense<0> : tensor<6xi32>}> : () -> tensor<6xi32>
    %23 = "tosa.const"() <{values = dense<0> : tensor<2x6xi8>}> : () -> tensor<2x6xi8>
    %24 = "tosa.const"() <{values = dense<1> : tensor<2x6xi16>}> : () -> tensor<2x6xi16>
    %25 = "tfl.unidirectional_sequence_lstm"(%arg0, %11, %12, %13, %14, %15, %16, %17, %18, %10, %10, %10, %19, %20, %21, %22, %10, %10, %23, %24, %10, %10, %10, %10) <true> {umac.lstm = {cell_activation = "tanh", cell_clip = 1.000000e+01 : f32, cell_scale = 6.10351563E-5 : f32, hidden_scale = 0.00427617459 : f32, hidden_zero_point = 2 : i64, input_scale = 0.024469357 : f32, input_zero_point = 5 : i64, time_major = true, weight_scales = array<f32: 0.00350728724, 0.00353999017, 0.00334908813, 0.0034533313, 0.00335642486, 0.00389341824, 0.00326955831, 0.00385646499>}} : (tensor<7x2x5xi8>, tensor<6x5xi8>, tensor<6x5xi8>, tensor<6x5xi8>, tensor<6x5xi8>, tensor<6x6xi8>, tensor<6x6xi8>, tensor<6x6xi8>, tensor<6x6xi8>, none, none, none, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, none, none, tensor<2x6xi8>, tensor<2x6xi16>, none, none, none, none) -> tensor<7x2x6xi8>
    %26 = tosa.reshape %25, %8 : (tensor<7x2x6xi8>, !tosa.shape<4>) -> tensor<14x1x1x6xi8>
    %27 = tosa.reshape %9, %7 : (tensor<3x6xi8>, !tosa.shape<4>) -> tensor<3x1x1x6xi8>
    %28 = tosa.conv2d %26, %27, %6, %5, %4 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<14x1x1x6xi8>, tensor<3x1x1x6xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<14x1x1x3xi32>
    %29 = tosa.rescale %28, %2, %1, %6, %3 {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<14x1x1x3xi32>, tensor<3xi32>, tensor<3xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<14x1x1x3xi8>
    %30 = tosa.reshape %29, %0 : (tensor<14x1x1x3xi8>, !tosa.shape<3>) -> tensor<7x2x3xi8>
    return %30 : tensor<7x2x3xi8>
  }
}

