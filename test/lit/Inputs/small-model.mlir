func.func @main(%arg0: tensor<1x4xi8>, %arg1: tensor<1x4xi8>) -> tensor<1x4xi8> {
  %0 = tosa.add %arg0, %arg1 : (tensor<1x4xi8>, tensor<1x4xi8>) -> tensor<1x4xi8>
  %1 = tosa.clamp %0 {max_val = 100 : i8, min_val = -100 : i8} : (tensor<1x4xi8>) -> tensor<1x4xi8>
  return %1 : tensor<1x4xi8>
}
