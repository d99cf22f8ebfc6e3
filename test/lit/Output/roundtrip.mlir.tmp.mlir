module {
  func.func @add(%arg0: tensor<4xi8>, %arg1: tensor<4xi8>) -> tensor<4xi8> {
    %0 = tosa.add %arg0, %arg1 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
    return %0 : tensor<4xi8>
  }
  func.func @call_extern(%arg0: memref<4xi8>, %arg1: memref<4xi8>) {
    "umac.call_extern"(%arg0, %arg1) {callee = @kernel, operandSegmentSizes = array<i32: 1, 1>} : (memref<4xi8>, memref<4xi8>) -> ()
    return
  }
  func.func private @partitioned() attributes {umac.composite = "conv2d", umac.target = "npu"}
}
