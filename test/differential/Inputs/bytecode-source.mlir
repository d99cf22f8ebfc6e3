// The text Inputs/model.mlirbc was made from (mlir-opt 22 --emit-bytecode).
#map = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xi8>, tensor<4xi8>) outs(%a : tensor<4xi8>) {
  ^bb0(%x: i8, %y: i8, %o: i8):
    %s = arith.addi %x, %y : i8
    linalg.yield %s : i8
  } -> tensor<4xi8>
  %c = arith.constant dense_resource<weights> : tensor<4xi8>
  %t = tosa.add %r, %c : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %t : tensor<4xi8>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x0100000001020304"
    }
  }
#-}
