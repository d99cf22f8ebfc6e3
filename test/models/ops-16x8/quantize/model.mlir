module attributes {tf_saved_model.semantics, tfl.description = "MLIR Converted.", tfl.metadata = {CONVERSION_METADATA = "\0C\00\00\00\08\00\0E\00\08\00\04\00\08\00\00\00\10\00\00\00(\00\00\00\00\00\06\00\08\00\04\00\06\00\00\00\04\00\00\00\01\00\00\00\EC\03\00\00\0C\00\18\00\14\00\10\00\0C\00\04\00\0C\00\00\00\DC\D6K\B16\BF&g\02\00\00\00\02\00\00\00\04\00\00\00\06\00\00\002.21.0\00\00", min_runtime_version = "1.5.0\00\00\00\00\00\00\00\00\00\00\00"}, tfl.schema_version = 3 : i32} {
  func.func @main(%arg0: tensor<1x16xf32> {tf_saved_model.index_path = ["input_4"]}) -> (tensor<1x4xf32> {tf_saved_model.index_path = ["dense_4"]}) attributes {tf.entry_function = {inputs = "serving_default_input_4:0", outputs = "StatefulPartitionedCall:0"}, tf_saved_model.exported_names = ["serving_default"]} {
    %0 = "tosa.const"() <{values = dense<8.78904756E-5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %1 = tosa.const_shape  {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %2 = "tosa.const"() <{values = dense<22> : tensor<4xi8>}> : () -> tensor<4xi8>
    %3 = "tosa.const"() <{values = dense<[16564, 18758, 22414, 23695]> : tensor<4xi16>}> : () -> tensor<4xi16>
    %4 = tosa.const_shape  {values = dense<[4, 1, 1, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %5 = tosa.const_shape  {values = dense<[1, 1, 1, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %6 = "tosa.const"() <{values = dense<[[-51, 67, 127, -111, 105, -64, -67, -86], [37, 84, 127, -42, -34, 124, -4, 41], [-63, -127, 108, 116, 12, 11, -87, -72], [-64, 123, -88, 14, -127, 42, 86, -117]]> : tensor<4x8xi8>}> : () -> tensor<4x8xi8>
    %7 = tosa.const_shape  {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %8 = "tosa.const"() <{values = dense<[23, 22, 22, 22, 23, 22, 22, 22]> : tensor<8xi8>}> : () -> tensor<8xi8>
    %9 = "tosa.const"() <{values = dense<[30626, 17944, 17925, 17939, 32720, 16842, 16592, 17546]> : tensor<8xi16>}> : () -> tensor<8xi16>
    %10 = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
    %11 = "tosa.const"() <{values = dense<0> : tensor<1xi48>}> : () -> tensor<1xi48>
    %12 = tosa.const_shape  {values = dense<[8, 1, 1, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %13 = tosa.const_shape  {values = dense<[1, 1, 1, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %14 = "tosa.const"() <{values = dense<"0x4D2C2CC752BD91E20E8B88A11014947F9A9BBC39FA0382E442DC32FFD181852A9261FA5C9812B9C9C8F6E7D3C381C22C556607F7CB1352DBD6DFDBCBE0027FA085C1C85C977DF3E7044481B7AB04FFF39B6AC9E5C91AC87FAD83A3A0E105B53D19DD81D329D7F911F615BB95B4B52BBD7B5AC6C1AA7FFCB9D41129FA3D0C5278"> : tensor<8x16xi8>}> : () -> tensor<8x16xi8>
    %15 = "tosa.const"() <{values = dense<10077.6934> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %16 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %17 = tosa.mul %arg0, %15, %16 : (tensor<1x16xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x16xf32>
    %18 = tosa.cast %17 : (tensor<1x16xf32>) -> tensor<1x16xi16>
    %19 = tosa.reshape %18, %13 : (tensor<1x16xi16>, !tosa.shape<4>) -> tensor<1x1x1x16xi16>
    %20 = tosa.reshape %14, %12 : (tensor<8x16xi8>, !tosa.shape<4>) -> tensor<8x1x1x16xi8>
    %21 = tosa.conv2d %19, %20, %11, %10, %16 {acc_type = i48, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x1x16xi16>, tensor<8x1x1x16xi8>, tensor<1xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x1x1x8xi48>
    %22 = tosa.rescale %21, %9, %8, %11, %10 {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = false} : (tensor<1x1x1x8xi48>, tensor<8xi16>, tensor<8xi8>, tensor<1xi48>, tensor<1xi16>) -> tensor<1x1x1x8xi16>
    %23 = tosa.reshape %22, %7 : (tensor<1x1x1x8xi16>, !tosa.shape<2>) -> tensor<1x8xi16>
    %24 = tosa.clamp %23 {max_val = 32767 : i16, min_val = 0 : i16} : (tensor<1x8xi16>) -> tensor<1x8xi16>
    %25 = tosa.reshape %24, %5 : (tensor<1x8xi16>, !tosa.shape<4>) -> tensor<1x1x1x8xi16>
    %26 = tosa.reshape %6, %4 : (tensor<4x8xi8>, !tosa.shape<4>) -> tensor<4x1x1x8xi8>
    %27 = tosa.conv2d %25, %26, %11, %10, %16 {acc_type = i48, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x1x8xi16>, tensor<4x1x1x8xi8>, tensor<1xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x1x1x4xi48>
    %28 = tosa.rescale %27, %3, %2, %11, %10 {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = false} : (tensor<1x1x1x4xi48>, tensor<4xi16>, tensor<4xi8>, tensor<1xi48>, tensor<1xi16>) -> tensor<1x1x1x4xi16>
    %29 = tosa.reshape %28, %1 : (tensor<1x1x1x4xi16>, !tosa.shape<2>) -> tensor<1x4xi16>
    %30 = tosa.cast %29 : (tensor<1x4xi16>) -> tensor<1x4xf32>
    %31 = tosa.mul %30, %0, %16 : (tensor<1x4xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x4xf32>
    return %31 : tensor<1x4xf32>
  }
}
