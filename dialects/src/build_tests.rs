//! The builder's ops print as the same ops written as text.

use super::*;
use crate::{ContextOptions, create_context, source::print_module};
use melior::ir::{BlockLike, Location, Module, operation::OperationLike};

/// Prints `function` in a module of its own.
fn printed(context: &Context, function: Operation) -> String {
    let module = Module::new(Location::unknown(context));
    module.body().append_operation(function);
    assert!(module.as_operation().verify());
    print_module(&module)
}

/// `text` parsed and printed back.
fn reprinted(context: &Context, text: &str) -> String {
    let module = Module::parse(context, text).expect("the expected text parses");
    print_module(&module)
}

#[test]
fn builds_what_the_text_says() {
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
    let mut b = Builder::function(&context, "f", &[Ty::Index, Ty::I32], "test");
    b.set_function_attribute("passthrough", Attr::Strings(&["noinline"]));
    let inner = [("z", Attr::Unit)];
    b.set_function_attribute("k", Attr::Dict(&[("b", Attr::Int(Ty::I64, 4)), ("a", Attr::Dict(&inner))]));
    let (address, n) = (b.arg(0), b.arg(1));
    let base = b.index_cast(address, Ty::I32);
    let zero = b.constant(Ty::I32, 0);
    let one = b.constant(Ty::I32, 1);
    let table = b.alloca(n, Ty::I32);
    let word = b.gep(table, 3, Ty::I32);
    b.store(base, word);
    let bounds = [b.constant(Ty::Index, 0), b.constant(Ty::Index, 4), b.constant(Ty::Index, 1)];
    let marks =
        [("unroll", Attr::Parsed("#llvm.loop_annotation<unroll = <full = true>>")), ("k", Attr::Int(Ty::I64, 2))];
    let last = b.for_loop(bounds, &[zero], &marks, |b, i, carried| {
        let i = b.index_cast(i, Ty::I32);
        let row = b.gep_dynamic(table, i, Ty::I32);
        let x = b.load(row, Ty::I32);
        let sum = b.addi(carried[0], x);
        let big = b.cmpi(Cmp::Uge, sum, one);
        let both = b.andi(big, big);
        let kept = b.if_else(both, &[Ty::I32], &[("m", Attr::Unit)], |b| vec![b.muli(sum, sum)], |_| vec![sum]);
        vec![b.select(big, kept[0], sum)]
    });
    let ne = b.cmpi(Cmp::Ne, last[0], zero);
    b.when(ne, |b| {
        let p = b.inttoptr(last[0]);
        let q = b.ptrtoint(p, Ty::I32);
        b.inline_asm(".insn r CUSTOM_3, 0, 0, x0, $0, x0", "r,~{memory}", &[q]);
        let r = b.inline_asm_value("mv $0, $1", "=r,r", &[q], Ty::I32);
        b.op("test.op", &[r], &[Ty::I32], &[("a", Attr::I64Array(&[1, 2])), ("s", Attr::Str("x"))]);
    });
    let built = printed(&context, b.finish().unwrap());
    let expected = r#"module {
  func.func private @f(%a: index, %n: i32) attributes {k = {a = {z}, b = 4 : i64}, passthrough = ["noinline"]} {
    %base = arith.index_cast %a : index to i32
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %table = llvm.alloca %n x i32 : (i32) -> !llvm.ptr
    %word = llvm.getelementptr %table[3] : (!llvm.ptr) -> !llvm.ptr, i32
    llvm.store %base, %word : i32, !llvm.ptr
    %lo = arith.constant 0 : index
    %hi = arith.constant 4 : index
    %step = arith.constant 1 : index
    %last = scf.for %i = %lo to %hi step %step iter_args(%acc = %zero) -> (i32) {
      %i32 = arith.index_cast %i : index to i32
      %row = llvm.getelementptr %table[%i32] : (!llvm.ptr, i32) -> !llvm.ptr, i32
      %x = llvm.load %row : !llvm.ptr -> i32
      %sum = arith.addi %acc, %x : i32
      %big = arith.cmpi uge, %sum, %one : i32
      %both = arith.andi %big, %big : i1
      %kept = scf.if %both -> (i32) {
        %sq = arith.muli %sum, %sum : i32
        scf.yield %sq : i32
      } else {
        scf.yield %sum : i32
      } {m}
      %next = arith.select %big, %kept, %sum : i32
      scf.yield %next : i32
    } {k = 2 : i64, unroll = #llvm.loop_annotation<unroll = <full = true>>}
    %ne = arith.cmpi ne, %last, %zero : i32
    scf.if %ne {
      %p = llvm.inttoptr %last : i32 to !llvm.ptr
      %q = llvm.ptrtoint %p : !llvm.ptr to i32
      llvm.inline_asm has_side_effects ".insn r CUSTOM_3, 0, 0, x0, $0, x0", "r,~{memory}" %q : (i32) -> ()
      %r = llvm.inline_asm has_side_effects "mv $0, $1", "=r,r" %q : (i32) -> i32
      %t = "test.op"(%r) {a = array<i64: 1, 2>, s = "x"} : (i32) -> i32
    }
    return
  }
}"#;
    assert_eq!(built, reprinted(&context, expected));
}

#[test]
fn an_attribute_that_does_not_parse_is_an_internal_error() {
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
    let mut b = Builder::function(&context, "g", &[], "test");
    b.op("test.op", &[], &[], &[("broken", Attr::Parsed("#not<an attribute"))]);
    assert!(matches!(b.finish(), Err(Error::Internal(e)) if e.contains("#not<an attribute")));
}

#[test]
#[should_panic(expected = "a value of another function")]
fn a_value_stays_in_its_function() {
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
    let mut f = Builder::function(&context, "f", &[Ty::I32], "test");
    let mut g = Builder::function(&context, "g", &[], "test");
    let x = f.arg(0);
    let _ = f.constant(Ty::I32, 1);
    g.addi(x, x);
}

#[test]
fn writes_in_front_of_an_op_and_replaces_it() {
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
    let text = r#"func.func @f(%x: i32) -> i32 {
  %y = "test.twice"(%x) : (i32) -> i32
  return %y : i32
}"#;
    let module = Module::parse(&context, text).unwrap();
    let function = crate::ir::find_function(module.as_operation(), "f").unwrap();
    let twice = crate::ir::collect(function, |op| crate::ir::op_name(op) == "test.twice")[0];
    // SAFETY: collected from the live module.
    let twice = unsafe { melior::ir::OperationRef::from_raw(twice) };
    let mut b = Builder::before(&context, twice);
    let x = b.arg(0);
    let y = b.addi(x, x);
    b.replace(&[y]).unwrap();
    let expected = "func.func @f(%x: i32) -> i32 {\n  %y = arith.addi %x, %x : i32\n  return %y : i32\n}";
    assert_eq!(print_module(&module), reprinted(&context, expected));
}

#[test]
fn a_replacement_gives_every_result() {
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
    let text = "func.func @f(%x: i32) -> i32 {\n  %y = \"test.twice\"(%x) : (i32) -> i32\n  return %y : i32\n}";
    let module = Module::parse(&context, text).unwrap();
    let function = crate::ir::find_function(module.as_operation(), "f").unwrap();
    let twice = crate::ir::collect(function, |op| crate::ir::op_name(op) == "test.twice")[0];
    // SAFETY: collected from the live module.
    let b = Builder::before(&context, unsafe { melior::ir::OperationRef::from_raw(twice) });
    assert!(matches!(b.replace(&[]), Err(Error::Internal(e)) if e.contains("has 1 results, replaced by 0")));
    assert!(module.as_operation().verify(), "the op stays when its replacement is refused");
}

#[test]
fn builds_floats_vectors_and_tensors() {
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
    let text = r#"func.func @f(%v: vector<4xf32>, %d: f64, %t: tensor<2x3xi8>) -> (vector<4xf32>, f64) {
  %y = "test.op"(%v, %d, %t) : (vector<4xf32>, f64, tensor<2x3xi8>) -> vector<4xf32>
  return %y, %d : vector<4xf32>, f64
}"#;
    let module = Module::parse(&context, text).unwrap();
    let function = crate::ir::find_function(module.as_operation(), "f").unwrap();
    let op = crate::ir::collect(function, |op| crate::ir::op_name(op) == "test.op")[0];
    // SAFETY: collected from the live module.
    let mut b = Builder::before(&context, unsafe { melior::ir::OperationRef::from_raw(op) });
    let (v, d, t) = (b.arg(0), b.arg(1), b.arg(2));
    let (vt, tt) = (b.type_of(v), b.type_of(t));
    // Named types come back named, others as `Ty::Of`; shapes and elements convert both ways.
    assert_eq!(b.type_of(d), Ty::F64);
    assert!(matches!(vt, Ty::Of(_)));
    assert_eq!(b.element_of(vt), Ty::F32);
    assert_eq!(b.shaped_like(Ty::F64, Ty::I1), Ty::I1);
    assert_eq!(b.shaped_like(b.tensor(&[2, 3], Ty::I32), Ty::I1), b.tensor(&[2, 3], Ty::I1));
    assert_eq!(b.shaped_like(vt, Ty::F32), vt);
    assert_ne!(b.shaped_like(vt, Ty::I32), vt);
    let half = b.op1("arith.constant", &[], vt, &[("value", Attr::Float(vt, 0.5))]);
    let less = b.cmpf(CmpF::Olt, v, half);
    let chosen = b.select(less, v, half);
    let one = b.op1("arith.constant", &[], Ty::F64, &[("value", Attr::Float(Ty::F64, 1.0))]);
    let nan = b.cmpf(CmpF::Uno, d, one);
    b.op("test.use", &[nan, t], &[], &[]);
    let element = b.element_of(tt);
    let index = b.tensor(&[2], Ty::Index);
    let shape = b.parsed_type("!test.shape<2>");
    let dims = b.op1("test.shape", &[], shape, &[("values", Attr::Dense(index, &[2, 3]))]);
    let counts = b.tensor(&[2], element);
    b.op1("test.count", &[dims], counts, &[("n", Attr::Int(counts, 7))]);
    b.replace(&[chosen]).unwrap();
    let expected = r#"func.func @f(%v: vector<4xf32>, %d: f64, %t: tensor<2x3xi8>) -> (vector<4xf32>, f64) {
  %half = arith.constant dense<5.000000e-01> : vector<4xf32>
  %less = arith.cmpf olt, %v, %half : vector<4xf32>
  %y = arith.select %less, %v, %half : vector<4xi1>, vector<4xf32>
  %one = arith.constant 1.000000e+00 : f64
  %nan = arith.cmpf uno, %d, %one : f64
  "test.use"(%nan, %t) : (i1, tensor<2x3xi8>) -> ()
  %dims = "test.shape"() {values = dense<[2, 3]> : tensor<2xindex>} : () -> !test.shape<2>
  %n = "test.count"(%dims) {n = dense<7> : tensor<2xi8>} : (!test.shape<2>) -> tensor<2xi8>
  return %y, %d : vector<4xf32>, f64
}"#;
    assert_eq!(print_module(&module), reprinted(&context, expected));
}

#[test]
fn a_type_that_does_not_parse_is_an_internal_error() {
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
    let mut b = Builder::function(&context, "g", &[], "test");
    let broken = b.parsed_type("!not<a type");
    b.op("test.op", &[], &[broken], &[]);
    assert!(matches!(b.finish(), Err(Error::Internal(e)) if e.contains("!not<a type")));
}

#[test]
fn dense_integers_keep_the_low_bits_of_their_width() {
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
    let mut b = Builder::function(&context, "h", &[], "test");
    let (bytes, halves) = (b.tensor(&[3], Ty::I8), b.tensor(&[2], Ty::I16));
    b.op(
        "test.op",
        &[],
        &[],
        &[("a", Attr::Dense(bytes, &[-1, 255, 256 + 2])), ("b", Attr::Dense(halves, &[-2, 513]))],
    );
    b.op("test.op", &[], &[], &[("c", Attr::Dense(bytes, &[7]))]);
    let expected = r#"module {
  func.func private @h() {
    "test.op"() {a = dense<[-1, -1, 2]> : tensor<3xi8>, b = dense<[-2, 513]> : tensor<2xi16>} : () -> ()
    "test.op"() {c = dense<7> : tensor<3xi8>} : () -> ()
    return
  }
}"#;
    assert_eq!(printed(&context, b.finish().unwrap()), reprinted(&context, expected));
}

#[test]
fn writes_a_region_in_front_of_an_op_it_keeps() {
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
    let text = "func.func @f(%x: i32) {\n  \"test.end\"(%x) : (i32) -> ()\n  return\n}";
    let module = Module::parse(&context, text).unwrap();
    let function = crate::ir::find_function(module.as_operation(), "f").unwrap();
    let end = crate::ir::collect(function, |op| crate::ir::op_name(op) == "test.end")[0];
    // SAFETY: collected from the live module.
    let mut b = Builder::before(&context, unsafe { melior::ir::OperationRef::from_raw(end) });
    let x = b.arg(0);
    let outer = b.region_op("test.outer", (&[x], &[Ty::I32]), &[("k", Attr::Bool(true))], |b| {
        b.op("test.inner", &[x], &[], &[]);
    });
    b.op("test.use", &[outer[0]], &[], &[]);
    b.done().unwrap();
    let expected = r#"func.func @f(%x: i32) {
  %y = "test.outer"(%x) ({
    "test.inner"(%x) : (i32) -> ()
  }) {k = true} : (i32) -> i32
  "test.use"(%y) : (i32) -> ()
  "test.end"(%x) : (i32) -> ()
  return
}"#;
    assert_eq!(print_module(&module), reprinted(&context, expected));
}

#[test]
fn builds_linalg_tosa_buffers_and_intrinsics() {
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, ..Default::default() });
    let text = r#"func.func @f(%x: tensor<1x4x4x2xi8>, %w: tensor<3x1x1x2xi8>, %acc: tensor<1x4x4x3xi32>, %p: vector<16xi8>) -> tensor<1x4x4x3xi32> {
  %y = "test.op"(%x, %w, %acc) : (tensor<1x4x4x2xi8>, tensor<3x1x1x2xi8>, tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi32>
  return %y : tensor<1x4x4x3xi32>
}"#;
    let module = Module::parse(&context, text).unwrap();
    let function = crate::ir::find_function(module.as_operation(), "f").unwrap();
    let op = crate::ir::collect(function, |op| crate::ir::op_name(op) == "test.op")[0];
    // SAFETY: collected from the live module.
    let mut b = Builder::before(&context, unsafe { melior::ir::OperationRef::from_raw(op) });
    let (x, w, acc) = (b.arg(0), b.arg(1), b.arg(2));
    let strides = b.tensor(&[2], Ty::I64);
    let attributes = [("dilations", Attr::Dense(strides, &[1])), ("strides", Attr::Dense(strides, &[1]))];
    let conv = b.named_linalg("linalg.conv_2d_nhwc_fhwc", [&[x, w], &[acc]], &attributes)[0];
    let bias = b.tosa_const(b.tensor(&[3], Ty::I32), &[5, 6, 7]);
    let maps = [Attr::Map(4, &projection(4, &[3])), Attr::Map(4, &projection(4, &[0, 1, 2, 3]))];
    let parallel = ["parallel"; 4];
    let y = b.generic([&[bias], &[conv]], &maps, &parallel, &[("umac.op", Attr::Str("bias"))], |b, args| {
        vec![b.addi(args[1], args[0])]
    })[0];
    let buffer = b.to_buffer(y);
    let out = b.alloc(b.memref(&[1, 4, 4, 3], Ty::I32, Some("test.space")), 16);
    b.op("test.copy", &[buffer, out], &[], &[("callee", Attr::Symbol("kernel"))]);
    let shape = b.tosa_shape(&[48]);
    let shifted = b.op1("test.window", &[shape], Ty::I32, &[("map", Attr::Map(2, &[vec![2, 1, -1]]))]);
    let wide = b.call_intrinsic("llvm.test.wide", &[shifted], Ty::I64);
    let lanes = b.vector(&[16], Ty::I8);
    b.op("test.use", &[wide], &[lanes], &[]);
    b.replace(&[y]).unwrap();
    let expected = r#"#map = affine_map<(d0, d1, d2, d3) -> (d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1) -> (d0 * 2 + d1 - 1)>
func.func @f(%x: tensor<1x4x4x2xi8>, %w: tensor<3x1x1x2xi8>, %acc: tensor<1x4x4x3xi32>, %p: vector<16xi8>) -> tensor<1x4x4x3xi32> {
  %conv = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x2xi8>, tensor<3x1x1x2xi8>) outs(%acc : tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi32>
  %bias = "tosa.const"() <{values = dense<[5, 6, 7]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %y = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<3xi32>) outs(%conv : tensor<1x4x4x3xi32>) attrs = {umac.op = "bias"} {
  ^bb0(%in: i32, %out: i32):
    %s = arith.addi %out, %in : i32
    linalg.yield %s : i32
  } -> tensor<1x4x4x3xi32>
  %buffer = bufferization.to_buffer %y read_only : tensor<1x4x4x3xi32> to memref<1x4x4x3xi32>
  %out = memref.alloc() {alignment = 16 : i64} : memref<1x4x4x3xi32, "test.space">
  "test.copy"(%buffer, %out) {callee = @kernel} : (memref<1x4x4x3xi32>, memref<1x4x4x3xi32, "test.space">) -> ()
  %shape = tosa.const_shape {values = dense<48> : tensor<1xindex>} : () -> !tosa.shape<1>
  %at = "test.window"(%shape) {map = #map2} : (!tosa.shape<1>) -> i32
  %wide = llvm.call_intrinsic "llvm.test.wide"(%at) : (i32) -> i64
  %lanes = "test.use"(%wide) : (i64) -> vector<16xi8>
  return %y : tensor<1x4x4x3xi32>
}"#;
    assert_eq!(print_module(&module), reprinted(&context, expected));
    assert!(module.as_operation().verify());
}
