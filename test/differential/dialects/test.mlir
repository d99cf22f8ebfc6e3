// Test dialect: custom-format test ops with literals, attributes, operands, results and regions.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s -cse
// RUN: %compare %s --test-print-nesting

func.func @formats(%i64: i64, %i32: i32, %m: memref<1xf64>) {
  test.format_literal_op keyword_$. -> :, = <> () []( ) ? + * {
  } {foo.some_attr}
  test.format_attr_op 10
  test.format_opt_attr_op_a(10)
  test.format_symbol_name_attr_op @name
  test.format_attr_dict_w_keyword attributes {attr = 10 : i64, opt_attr = 10 : i64}
  test.format_operand_a_op %i64, %m : i64, memref<1xf64>
  test.format_variadic_operand %i64, %i64, %i64 : i64, i64, i64
  test.format_multiple_variadic_operands (%i64, %i64, %i64), (%i64, %i32 : i64, i32)
  %r:2 = test.format_result_b_op i64, memref<1xf64>
  %v:3 = test.format_variadic_result : i64, i64, i64
  test.format_optional_unit_attribute is_optional
  test.format_optional_enum_attr "case5"
  %o = test.format_optional_operand_result_b_op(%i64 : i64) : i64
  test.format_custom_directive_attributes 54 : i64, 46 : i64
  %t1 = test.format_all_types_match_var %i64, %i64 : i64
  %t2 = test.format_types_match_attr 1 : i64
  test.format_region_a_op {
    "test.return"() : () -> ()
  }
  test.format_implicit_terminator_region_a_op {
    "test.return"(%i64) : (i64) -> ()
  }
  %a = "test.op_a"(%i32) {attr = 10 : i32} : (i32) -> i32
  return
}
