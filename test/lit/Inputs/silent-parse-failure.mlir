func.func @f(%a: tensor<1x6x6x4xi8>) -> tensor<1x3x3x4xi8> {
  %pooled = tosa.max_pool2d %a {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, 8tride = array<i64: 2, 2>} : (tensor<1x6x6x4xi8>) -> tensor<1x3x3x4xi8>
  return %pooled : tensor<1x3x3x4xi8>
}
