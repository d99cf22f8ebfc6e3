// Float arithmetic, conversions both ways (toward zero), and a comparison picking the larger.
// case: f32[3] 1.5 -2.25 10 ; f32[3] 0.5 4 -3 -> f32[3] 0.75 -9 -30 ; f32[3] 3 -0.5625 -3.3333333 ; i32[3] 3 0 -3 ; f32[3] 3 1.75 7
func.func @main(%a: memref<3xf32>, %b: memref<3xf32>, %prod: memref<3xf32>, %quot: memref<3xf32>,
                %whole: memref<3xi32>, %sum: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  %more = arith.cmpi slt, %i, %c3 : index
  cf.cond_br %more, ^body, ^done
^body:
  %x = memref.load %a[%i] : memref<3xf32>
  %y = memref.load %b[%i] : memref<3xf32>
  %p = arith.mulf %x, %y : f32
  memref.store %p, %prod[%i] : memref<3xf32>
  %q = arith.divf %x, %y : f32
  memref.store %q, %quot[%i] : memref<3xf32>
  %w = arith.fptosi %q : f32 to i32
  memref.store %w, %whole[%i] : memref<3xi32>
  %back = arith.sitofp %w : i32 to f32
  %s = arith.addf %x, %y : f32
  %neg = arith.cmpf olt, %s, %back : f32
  %pick = arith.select %neg, %back, %s : f32
  memref.store %pick, %sum[%i] : memref<3xf32>
  %next = arith.addi %i, %c1 : index
  cf.br ^loop(%next : index)
^done:
  return
}
