func.func @g(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %a = arith.addi %x, %c0 : i32
  %b = arith.addi %x, %c0 : i32
  %r = arith.muli %a, %b : i32
  return %r : i32
}

{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(func.func(canonicalize,cse))",
      disable_threading: true,
      verify_each: true
    }
  }
#-}
