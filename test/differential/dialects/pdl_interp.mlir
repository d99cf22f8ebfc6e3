// Pdl_interp dialect: a matcher and rewriter module in the interpreter form of PDL.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize

module @ir attributes {test.pdl_interp} {
  pdl_interp.func @matcher(%root: !pdl.operation) {
    pdl_interp.check_operation_name of %root is "test.op" -> ^pat, ^end
  ^pat:
    pdl_interp.check_operand_count of %root is 1 -> ^check_type, ^end
  ^check_type:
    %operand = pdl_interp.get_operand 0 of %root
    %type = pdl_interp.get_value_type of %operand : !pdl.type
    pdl_interp.check_type %type is i32 -> ^record, ^end
  ^record:
    pdl_interp.record_match @rewriters::@rewrite(%root, %operand : !pdl.operation, !pdl.value) : benefit(1), loc([%root]), root("test.op") -> ^end
  ^end:
    pdl_interp.finalize
  }

  module @rewriters {
    pdl_interp.func @rewrite(%root: !pdl.operation, %value: !pdl.value) {
      %type = pdl_interp.get_value_type of %value : !pdl.type
      %attr = pdl_interp.create_attribute 7 : i64
      %op = pdl_interp.create_operation "test.replacement"(%value : !pdl.value) {"value" = %attr} -> (%type : !pdl.type)
      %results = pdl_interp.get_results of %op : !pdl.range<value>
      pdl_interp.replace %root with (%results : !pdl.range<value>)
      pdl_interp.finalize
    }
  }
}
