module attributes {tf_saved_model.semantics, tfl.description = "MLIR Converted.", tfl.metadata = {CONVERSION_METADATA = "\0C\00\00\00\08\00\0E\00\08\00\04\00\08\00\00\00\10\00\00\00(\00\00\00\00\00\06\00\08\00\04\00\06\00\00\00\04\00\00\00\01\00\00\00\EB\03\00\00\0C\00\18\00\14\00\10\00\0C\00\04\00\0C\00\00\00/\A1\8E\D6v\07@2\02\00\00\00\02\00\00\00\04\00\00\00\06\00\00\002.21.0\00\00", min_runtime_version = "2.0.0\00\00\00\00\00\00\00\00\00\00\00"}, tfl.schema_version = 3 : i32} {
  func.func @main(%arg0: tensor<1x5x3xi8> {tf_saved_model.index_path = ["input_2"]}) -> (tensor<1x5x2xi8> {tf_saved_model.index_path = ["dense_1"]}) attributes {tf.entry_function = {inputs = "serving_default_input_2:0", outputs = "StatefulPartitionedCall:0"}, tf_saved_model.exported_names = ["serving_default"]} {
    %0 = tosa.const_shape  {values = dense<[1, 5, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %1 = "tosa.const"() <{values = dense<37> : tensor<2xi8>}> : () -> tensor<2xi8>
    %2 = "tosa.const"() <{values = dense<[1177532178, 1139921858]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %3 = "tosa.const"() <{values = dense<-58> : tensor<1xi8>}> : () -> tensor<1xi8>
    %4 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %5 = "tosa.const"() <{values = dense<-31> : tensor<1xi8>}> : () -> tensor<1xi8>
    %6 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %7 = tosa.const_shape  {values = dense<[2, 1, 1, 6]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %8 = tosa.const_shape  {values = dense<[5, 1, 1, 6]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %9 = "tosa.const"() <{values = dense<[[-3, 6, -19, 54, -88, 127], [64, 127, 4, 79, -53, -27]]> : tensor<2x6xi8>}> : () -> tensor<2x6xi8>
    %10 = "tfl.no_value"() <true> : () -> none
    %11 = "tosa.const"() <{values = dense<[[44, -102, -48], [17, 18, 41], [127, 93, -62], [8, 127, 27], [105, 74, -69], [-112, -65, 101]]> : tensor<6x3xi8>}> : () -> tensor<6x3xi8>
    %12 = "tosa.const"() <{values = dense<[[-91, 63, -21], [-11, 31, -56], [123, 25, -96], [5, 37, 19], [126, 105, -108], [127, -19, -86]]> : tensor<6x3xi8>}> : () -> tensor<6x3xi8>
    %13 = "tosa.const"() <{values = dense<[[-56, -65, 112], [-127, -5, 112], [117, 96, -54], [81, 116, -30], [-10, -87, 47], [109, -116, 25]]> : tensor<6x3xi8>}> : () -> tensor<6x3xi8>
    %14 = "tosa.const"() <{values = dense<[[-90, -75, 100], [-116, 102, 98], [127, 51, -14], [103, 10, -110], [-76, -24, 58], [32, 55, -49]]> : tensor<6x3xi8>}> : () -> tensor<6x3xi8>
    %15 = "tosa.const"() <{values = dense<[[-15, 53, 67, 6, -67, 28], [-61, -11, -22, 56, 23, 71], [-39, -127, 37, -60, -60, 65], [23, -25, 24, 8, -10, -77], [116, -6, -12, 98, -59, 64], [82, -21, 10, 103, 87, -19]]> : tensor<6x6xi8>}> : () -> tensor<6x6xi8>
    %16 = "tosa.const"() <{values = dense<[[-44, -2, 18, -70, -89, -69], [71, 8, -14, -35, 52, 7], [24, -23, -87, -77, -54, 127], [57, 31, -51, 53, -55, 54], [72, -81, -43, -73, 34, -42], [53, -42, 106, 5, 17, 2]]> : tensor<6x6xi8>}> : () -> tensor<6x6xi8>
    %17 = "tosa.const"() <{values = dense<[[-127, 8, -63, 67, 30, -29], [-2, -66, -60, 30, 16, -6], [-7, 49, -53, -47, 108, 53], [25, 23, -33, 67, -104, -66], [19, -119, 3, 14, 5, -47], [36, 7, -17, -43, -38, 15]]> : tensor<6x6xi8>}> : () -> tensor<6x6xi8>
    %18 = "tosa.const"() <{values = dense<[[-60, -72, 26, 29, 3, -34], [14, 0, 32, 17, 30, 36], [26, -30, 67, -46, 64, 0], [-57, -93, -1, 56, -28, 100], [13, -75, -127, 25, 14, -35], [-28, -21, 113, 70, 34, 75]]> : tensor<6x6xi8>}> : () -> tensor<6x6xi8>
    %19 = "tosa.const"() <{values = dense<0> : tensor<6xi32>}> : () -> tensor<6xi32>
    %20 = "tosa.const"() <{values = dense<12303> : tensor<6xi32>}> : () -> tensor<6xi32>
    %21 = "tosa.const"() <{values = dense<0> : tensor<6xi32>}> : () -> tensor<6xi32>
    %22 = "tosa.const"() <{values = dense<0> : tensor<6xi32>}> : () -> tensor<6xi32>
    %23 = "tosa.const"() <{values = dense<0> : tensor<1x6xi8>}> : () -> tensor<1x6xi8>
    %24 = "tosa.const"() <{values = dense<1> : tensor<1x6xi16>}> : () -> tensor<1x6xi16>
    %25 = "tfl.unidirectional_sequence_lstm"(%arg0, %11, %12, %13, %14, %15, %16, %17, %18, %10, %10, %10, %19, %20, %21, %22, %10, %10, %23, %24, %10, %10, %10, %10) <unit> {umac.lstm = {cell_activation = "tanh", cell_clip = 1.000000e+01 : f32, cell_scale = 3.05175781E-5 : f32, hidden_scale = 0.00417781388 : f32, hidden_zero_point = -31 : i64, input_scale = 0.0226994827 : f32, input_zero_point = 15 : i64, time_major = false, weight_scales = array<f32: 0.00354531407, 0.00358064519, 0.00361531205, 0.00369478087, 0.00370561099, 0.00356854731, 0.00407256559, 0.00338021968>}} : (tensor<1x5x3xi8>, tensor<6x3xi8>, tensor<6x3xi8>, tensor<6x3xi8>, tensor<6x3xi8>, tensor<6x6xi8>, tensor<6x6xi8>, tensor<6x6xi8>, tensor<6x6xi8>, none, none, none, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, none, none, tensor<1x6xi8>, tensor<1x6xi16>, none, none, none, none) -> tensor<1x5x6xi8>
    %26 = tosa.reshape %25, %8 : (tensor<1x5x6xi8>, !tosa.shape<4>) -> tensor<5x1x1x6xi8>
    %27 = tosa.reshape %9, %7 : (tensor<2x6xi8>, !tosa.shape<4>) -> tensor<2x1x1x6xi8>
    %28 = tosa.conv2d %26, %27, %6, %5, %4 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<5x1x1x6xi8>, tensor<2x1x1x6xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<5x1x1x2xi32>
    %29 = tosa.rescale %28, %2, %1, %6, %3 {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<5x1x1x2xi32>, tensor<2xi32>, tensor<2xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<5x1x1x2xi8>
    %30 = tosa.reshape %29, %0 : (tensor<5x1x1x2xi8>, !tosa.shape<3>) -> tensor<1x5x2xi8>
    return %30 : tensor<1x5x2xi8>
  }
}

