// GPU target dialects: nvgpu, nvvm, rocdl, amdgpu, xevm and xegpu ops inside kernels and functions.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --convert-nvgpu-to-nvvm
// RUN: %compare %s --convert-amdgpu-to-rocdl=chipset=gfx942
// RUN: %compare %s -convert-xevm-to-llvm

!desc = !xegpu.tensor_desc<8x16xf16>

func.func @nvgpu(%src: memref<128xf32>, %dst: memref<64xf32, #gpu.address_space<workgroup>>, %a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %c0 = arith.constant 0 : index
  %tok = nvgpu.device_async_copy %src[%c0], %dst[%c0], 4 : memref<128xf32> to memref<64xf32, #gpu.address_space<workgroup>>
  %grp = nvgpu.device_async_create_group %tok
  nvgpu.device_async_wait %grp {numGroups = 1 : i32}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

llvm.func @nvvm() -> i32 {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %ntid = nvvm.read.ptx.sreg.ntid.x range <i32, 1, 1025> : i32
  nvvm.barrier0
  %s = llvm.add %tid, %ntid : i32
  llvm.return %s : i32
}

llvm.func @rocdl(%x: f32) -> i32 {
  %id = rocdl.workitem.id.x : i32
  %wg = rocdl.workgroup.id.y : i32
  rocdl.barrier
  rocdl.s.waitcnt 0
  %s = llvm.add %id, %wg : i32
  llvm.return %s : i32
}

func.func @amdgpu(%buf: memref<64xf32>, %i: i32, %v: f32, %a: vector<4xf16>, %c: vector<4xf32>) -> (f32, vector<4xf32>) {
  %l = amdgpu.raw_buffer_load {boundsCheck = true} %buf[%i] : memref<64xf32>, i32 -> f32
  amdgpu.raw_buffer_store %v -> %buf[%i] : f32 -> memref<64xf32>, i32
  amdgpu.lds_barrier
  %m = amdgpu.mfma 4x4x4 %a * %a + %c {blocks = 16 : i32, abid = 0 : i32, cbsz = 0 : i32} blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
  return %l, %m : f32, vector<4xf32>
}

llvm.func @xevm(%p: !llvm.ptr<1>, %w: i32, %h: i32, %pitch: i32, %x: i32, %y: i32) {
  xevm.blockprefetch2d %p, %w, %h, %pitch, %x, %y <{elem_size_in_bits = 8 : i32, tile_width = 32 : i32, tile_height = 8 : i32, v_blocks = 1 : i32, cache_control = #xevm.load_cache_control<L1uc_L2uc_L3uc>}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32)
  xevm.memfence <{addrspace = #xevm.addr_space<global>, scope = #xevm.mem_scope<workgroup>}>
  llvm.return
}

func.func @xegpu(%m: memref<24x32xf16>) {
  %d = xegpu.create_nd_tdesc %m : memref<24x32xf16> -> !desc
  xegpu.prefetch_nd %d[0, 0] <{l1_hint = #xegpu.cache_hint<cached>}> : !desc
  %v = xegpu.load_nd %d[0, 0] : !desc -> vector<8x16xf16>
  xegpu.store_nd %v, %d[8, 0] : vector<8x16xf16>, !desc
  return
}
