// Every rejection of the umac verifier (umac.call_extern and the umac.* attributes).
// RUN: umac-opt %s --split-input-file --verify-diagnostics
// The umac-verify pass reports the same errors from inside a pipeline.
// RUN: umac-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(umac-verify)'

func.func @no_callee(%a: memref<4xi8>) {
  // expected-error @+1 {{'umac.call_extern' op requires a 'callee' attribute naming the C symbol to call}}
  "umac.call_extern"(%a) {operandSegmentSizes = array<i32: 0, 1>} : (memref<4xi8>) -> ()
  return
}

// -----

func.func @string_callee(%a: memref<4xi8>) {
  // expected-error @+1 {{'callee' must be a flat symbol reference such as @my_kernel, got "kernel"}}
  "umac.call_extern"(%a) {callee = "kernel", operandSegmentSizes = array<i32: 0, 1>} : (memref<4xi8>) -> ()
  return
}

// -----

func.func @nested_callee(%a: memref<4xi8>) {
  // expected-error @+1 {{'callee' must be a flat symbol reference}}
  "umac.call_extern"(%a) {callee = @lib::@kernel, operandSegmentSizes = array<i32: 0, 1>} : (memref<4xi8>) -> ()
  return
}

// -----

func.func @not_c(%a: memref<4xi8>) {
  // expected-error @+1 {{callee @"my-kernel" is not a C identifier}}
  "umac.call_extern"(%a) {callee = @"my-kernel", operandSegmentSizes = array<i32: 0, 1>} : (memref<4xi8>) -> ()
  return
}

// -----

func.func @results(%a: memref<4xi8>) {
  // expected-error @+1 {{must have no results: outputs are operands (destination-passing style)}}
  %r = "umac.call_extern"(%a) {callee = @k, operandSegmentSizes = array<i32: 0, 1>} : (memref<4xi8>) -> i32
  return
}

// -----

func.func @region(%a: memref<4xi8>) {
  // expected-error @+1 {{must have no regions or successors}}
  "umac.call_extern"(%a) ({
  }) {callee = @k, operandSegmentSizes = array<i32: 0, 1>} : (memref<4xi8>) -> ()
  return
}

// -----

func.func @no_segments(%a: memref<4xi8>) {
  // expected-error @+1 {{requires 'operandSegmentSizes = array<i32: #inputs, #outputs>' adding up to its 1 operands}}
  "umac.call_extern"(%a) {callee = @k} : (memref<4xi8>) -> ()
  return
}

// -----

func.func @bad_segments(%a: memref<4xi8>, %b: memref<4xi8>) {
  // expected-error @+1 {{adding up to its 2 operands}}
  "umac.call_extern"(%a, %b) {callee = @k, operandSegmentSizes = array<i32: 1, 2>} : (memref<4xi8>, memref<4xi8>) -> ()
  return
}

// -----

func.func @negative_segments(%a: memref<4xi8>) {
  // expected-error @+1 {{adding up to its 1 operands}}
  "umac.call_extern"(%a) {callee = @k, operandSegmentSizes = array<i32: 2, -1>} : (memref<4xi8>) -> ()
  return
}

// -----

func.func @no_output(%a: memref<4xi8>) {
  // expected-error @+1 {{requires at least one output operand, got 1 inputs and 0 outputs}}
  "umac.call_extern"(%a) {callee = @k, operandSegmentSizes = array<i32: 1, 0>} : (memref<4xi8>) -> ()
  return
}

// -----

func.func @tensor_input(%a: tensor<4xi8>, %b: memref<4xi8>) {
  // expected-error @+1 {{operand #0 (input) must be a memref or a scalar (integer, index, float), got 'tensor<4xi8>'}}
  "umac.call_extern"(%a, %b) {callee = @k, operandSegmentSizes = array<i32: 1, 1>} : (tensor<4xi8>, memref<4xi8>) -> ()
  return
}

// -----

func.func @scalar_output(%a: memref<4xi8>, %b: i32) {
  // expected-error @+1 {{operand #1 (output) must be a memref, got 'i32'}}
  "umac.call_extern"(%a, %b) {callee = @k, operandSegmentSizes = array<i32: 1, 1>} : (memref<4xi8>, i32) -> ()
  return
}

// -----

func.func private @k(memref<4xi8>, memref<8xi8>)

func.func @declared_differently(%a: memref<4xi8>, %b: memref<4xi8>) {
  // expected-error @+1 {{callee @k is declared as '(memref<4xi8>, memref<8xi8>) -> ()' but called as '(memref<4xi8>, memref<4xi8>) -> ()'}}
  "umac.call_extern"(%a, %b) {callee = @k, operandSegmentSizes = array<i32: 1, 1>} : (memref<4xi8>, memref<4xi8>) -> ()
  return
}

// -----

func.func @unknown_op() {
  // expected-error @+1 {{unregistered operation 'umac.frobnicate' found in dialect ('umac') that does not allow unknown operations}}
  "umac.frobnicate"() : () -> ()
  return
}

// -----

// expected-error @+1 {{'umac.target' must be a non-empty string, got 3 : i32}}
func.func private @target_not_string() attributes {umac.target = 3 : i32}

// -----

// expected-error @+1 {{'umac.target' must be a non-empty string, got ""}}
func.func private @target_empty() attributes {umac.target = ""}

// -----

// expected-error @+1 {{'umac.composite' requires 'umac.target' on the same function}}
func.func private @composite_alone() attributes {umac.composite = "conv2d"}

// -----

// expected-error @+1 {{'umac.composite' must be a non-empty string, got @x}}
func.func private @composite_symbol() attributes {umac.target = "npu", umac.composite = @x}

// -----

func.func @target_on_op() {
  // expected-error @+1 {{'umac.target' is only valid on a function (a partitioned function), not on 'arith.constant'}}
  %c = arith.constant {umac.target = "npu"} 0 : i32
  return
}

// -----

// expected-error @+1 {{unknown umac attribute 'umac.targt' (known: umac.target, umac.composite, umac.workspace_size, umac.workspace_lower_bound, umac.op, umac.interior, umac.doubling_high, umac.pools, umac.pool_sizes, umac.lstm)}}
func.func private @typo() attributes {umac.targt = "npu"}

// -----

// expected-error @+1 {{'umac.pools' must be an array of pool names, got ["dtcm", 3]}}
func.func private @pool_names() attributes {umac.pools = ["dtcm", 3]}

// -----

// expected-error @+1 {{'umac.pool_sizes' must be array<i64: ...> of sizes >= 0, got array<i64: 64, -1>}}
func.func private @pool_sizes() attributes {umac.pool_sizes = array<i64: 64, -1>}

// -----

func.func @pools_on_op() {
  // expected-error @+1 {{'umac.pools' is only valid on a function, not on 'arith.constant'}}
  %c = arith.constant {umac.pools = ["a"]} 0 : i32
  return
}

// -----

// expected-error @+1 {{'umac.workspace_size' must be a non-negative integer, got "big"}}
func.func private @workspace_text() attributes {umac.workspace_size = "big"}

// -----

// expected-error @+1 {{'umac.workspace_lower_bound' must be a non-negative integer, got -16 : i64}}
func.func private @workspace_negative() attributes {umac.workspace_lower_bound = -16 : i64}

// -----

func.func @workspace_on_op() {
  // expected-error @+1 {{'umac.workspace_size' is only valid on a function, not on 'arith.constant'}}
  %c = arith.constant {umac.workspace_size = 16 : i64} 0 : i32
  return
}

// -----

func.func @doubling_high_on_addi(%a: i32) -> i32 {
  // expected-error @+1 {{'umac.doubling_high' is only valid on 'arith.trunci' (or its 'llvm.trunc'), not on 'arith.addi'}}
  %b = arith.addi %a, %a {umac.doubling_high} : i32
  return %b : i32
}

// -----

func.func @doubling_high_valued(%a: i64) -> i32 {
  // expected-error @+1 {{'umac.doubling_high' must be a unit attribute, got 1 : i64}}
  %b = arith.trunci %a {umac.doubling_high = 1} : i64 to i32
  return %b : i32
}

// -----

// expected-error @+1 {{'umac.lstm' is only valid on 'tfl.unidirectional_sequence_lstm', not on 'arith.constant'}}
%c = arith.constant {umac.lstm = {time_major = false}} 0 : i32
