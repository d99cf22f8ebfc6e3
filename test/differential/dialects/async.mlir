// Async dialect: execute regions, tokens, values, groups and awaits.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --async-to-async-runtime

func.func @execute(%a: f32) -> f32 {
  %token, %value = async.execute -> !async.value<f32> {
    %b = arith.addf %a, %a : f32
    async.yield %b : f32
  }
  %t2 = async.execute [%token] {
    async.yield
  }
  %n = arith.constant 2 : index
  %group = async.create_group %n : !async.group
  %i0 = async.add_to_group %token, %group : !async.token
  %i1 = async.add_to_group %t2, %group : !async.token
  async.await_all %group
  async.await %t2 : !async.token
  %r = async.await %value : !async.value<f32>
  return %r : f32
}

async.func @coroutine(%x: i32) -> !async.value<i32> {
  %y = arith.addi %x, %x : i32
  return %y : i32
}
