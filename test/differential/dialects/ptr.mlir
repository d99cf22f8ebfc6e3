// Ptr dialect: generic pointers with memory spaces, offsets, loads, stores and type queries.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize

!gptr = !ptr.ptr<#ptr.generic_space>

func.func @ptr_ops(%p: !gptr, %off: index, %v: f32) -> (f32, index) {
  %q = ptr.ptr_add %p, %off : !gptr, index
  %r = ptr.ptr_add inbounds %q, %off : !gptr, index
  ptr.store %v, %r : f32, !gptr
  %l = ptr.load %q : !gptr -> f32
  %sz = ptr.type_offset f32 : index
  return %l, %sz : f32, index
}

func.func @meta(%m: memref<4xf32, #ptr.generic_space>) -> memref<4xf32, #ptr.generic_space> {
  %p = ptr.to_ptr %m : memref<4xf32, #ptr.generic_space> -> !gptr
  %md = ptr.get_metadata %m : memref<4xf32, #ptr.generic_space>
  %n = ptr.from_ptr %p metadata %md : !gptr -> memref<4xf32, #ptr.generic_space>
  return %n : memref<4xf32, #ptr.generic_space>
}
