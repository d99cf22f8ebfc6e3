// Spirv dialect: a module with entry point, globals, functions, arithmetic and structured control flow.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --spirv-update-vce

!buf = !spirv.ptr<!spirv.struct<(!spirv.array<16 x f32, stride=4> [0])>, StorageBuffer>

#env = #spirv.target_env<#spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>

spirv.module Logical GLSL450 attributes {spirv.target_env = #env} {
  spirv.GlobalVariable @data bind(0, 1) : !buf
  spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>

  spirv.func @scale(%x: f32, %n: i32) -> f32 "None" {
    %one = spirv.Constant 1.0 : f32
    %zero = spirv.Constant 0 : i32
    %y = spirv.FMul %x, %one : f32
    %c = spirv.SLessThan %n, %zero : i32
    %r = spirv.Select %c, %y, %one : i1, f32
    %e = spirv.GL.Exp %r : f32
    spirv.ReturnValue %e : f32
  }

  spirv.func @main() "None" {
    %ptr = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi32>, Input>
    %id = spirv.Load "Input" %ptr : vector<3xi32>
    %x = spirv.CompositeExtract %id[0 : i32] : vector<3xi32>
    %cond = spirv.Constant true
    spirv.mlir.selection {
      spirv.BranchConditional %cond, ^then, ^merge
    ^then:
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main, @gid
  spirv.ExecutionMode @main "LocalSize", 64, 1, 1
}
