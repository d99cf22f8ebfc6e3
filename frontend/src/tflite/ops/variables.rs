//! Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) as TOSA variables, and
//! CALL_ONCE, whose init subgraph runs on the first inference.
//!
//! TFLite Micro names a variable by its VAR_HANDLE's container and shared name; every handle
//! with the same names, in any subgraph, is the same variable. Its type is that of the first
//! ASSIGN_VARIABLE in the order TFLite Micro prepares operators (subgraph by subgraph, each in
//! order), and before any assignment it holds that value's int8 zero point in every byte, else
//! zeros (`MicroResourceVariables::Allocate`). Each variable the main subgraph reads or assigns
//! becomes a `tosa.variable`, read and written where the model does.
//!
//! CALL_ONCE runs its init subgraph on the first inference only (converters write init
//! subgraphs that assign the variables their first values): a `tosa.cond_if` on a flag of its
//! own, a boolean `tosa.variable` set when it has run, holds the init subgraph's operators. The
//! flag is state like the variables: resetting the model's state (`N_reset_state()`) clears it,
//! so the next inference runs the init subgraph again, where TFLite Micro's `Reset()` restores
//! the variables' default values and does not run CALL_ONCE again.

use super::{Cx, OpResult, bad, ty, unsupported};
use crate::tflite::{
    emit::{Ty, hex},
    model::{DType, Model, Operator, Options, Tensor},
};
use std::collections::HashMap;

/// The model's resource variables.
pub(crate) struct Variables<'m, 'a> {
    list: Vec<Variable<'m, 'a>>,
    /// Which variable each VAR_HANDLE output is: (subgraph, tensor) → index in `list`.
    handles: HashMap<(usize, usize), usize>,
}

struct Variable<'m, 'a> {
    /// `container/shared_name`, as TFLite names it.
    name: String,
    /// The value of its first assignment, in TFLite Micro's order.
    assigned: Option<&'m Tensor<'a>>,
    /// Its `tosa.variable` once declared.
    symbol: Option<String>,
}

impl<'m, 'a> Variables<'m, 'a> {
    /// Finds every variable and its first assignment.
    pub(crate) fn scan(model: &'m Model<'a>) -> Self {
        let mut variables = Variables { list: Vec::new(), handles: HashMap::new() };
        let mut by_name: HashMap<(&str, &str), usize> = HashMap::new();
        for (g, graph) in model.subgraphs.iter().enumerate() {
            for op in &graph.operators {
                match (&op.options, op.kind.as_str()) {
                    (Options::VarHandle { container, shared_name }, "VAR_HANDLE") => {
                        let Some(&output) = op.outputs.first() else { continue };
                        let next = variables.list.len();
                        let index = *by_name.entry((container.as_str(), shared_name.as_str())).or_insert(next);
                        if index == next {
                            let name = if container.is_empty() {
                                shared_name.clone()
                            } else {
                                format!("{container}/{shared_name}")
                            };
                            variables.list.push(Variable { name, assigned: None, symbol: None });
                        }
                        variables.handles.insert((g, output), index);
                    }
                    (_, "ASSIGN_VARIABLE") => {
                        let (Some(Some(handle)), Some(Some(value))) = (op.inputs.first(), op.inputs.get(1)) else {
                            continue;
                        };
                        if let Some(&index) = variables.handles.get(&(g, *handle)) {
                            variables.list[index].assigned.get_or_insert(&graph.tensors[*value]);
                        }
                    }
                    _ => {}
                }
            }
        }
        variables
    }
}

pub fn var_handle(_: &mut Cx, op: &Operator) -> OpResult {
    let Options::VarHandle { .. } = op.options else { return bad("its options are not a VAR_HANDLE's") };
    // The handle names the variable; READ_VARIABLE and ASSIGN_VARIABLE look it up.
    Ok(())
}

pub fn read(cx: &mut Cx, op: &Operator) -> OpResult {
    let (symbol, var_ty) = variable(cx, op)?;
    let out = cx.output(op, 0)?;
    if ty(out) != var_ty {
        return bad(format!("it reads {} into '{}', which is {}", var_ty.text(), out.name, ty(out).text()));
    }
    let value = cx.func.variable_read(&symbol, &var_ty);
    cx.define(op, 0, value)
}

pub fn assign(cx: &mut Cx, op: &Operator) -> OpResult {
    let (symbol, var_ty) = variable(cx, op)?;
    let value = cx.value(op, 1)?;
    if value.ty != var_ty {
        return bad(format!("it assigns {} to a variable of {}", value.ty.text(), var_ty.text()));
    }
    cx.func.variable_write(&symbol, &value);
    Ok(())
}

pub fn call_once(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::CallOnce { init } = op.options else { return bad("its options are not a CALL_ONCE's") };
    // A flag of its own: whether it has run (TFLite Micro's `has_run`).
    let flag_ty = Ty::new(&[], "i1");
    let flag = cx.func.variable(&format!("call_once_{}_{}", cx.graph_index, op.index), &flag_ty, "false");
    let ran = cx.func.variable_read(&flag, &flag_ty);
    let first = cx.func.op("logical_not", &[&ran], "", flag_ty.clone());
    cx.func.open(&format!("\"tosa.cond_if\"({}) ({{", first.name));
    // Its outputs, if any, go nowhere (TFLite Micro does not copy them).
    super::control_flow::subgraph(cx, init, &[], "init subgraph")?;
    let done = cx.func.constant(flag_ty.clone(), "true".into());
    cx.func.variable_write(&flag, &done);
    cx.func.yield_values(&[]);
    cx.func.open("}, {");
    cx.func.yield_values(&[]);
    cx.func.statement(&format!("}}) : ({}) -> ()", flag_ty.text()));
    Ok(())
}

/// The `tosa.variable` (declared on first use) and type of the variable operand #0 of `op`
/// (a READ_VARIABLE or ASSIGN_VARIABLE) names.
fn variable(cx: &mut Cx, op: &Operator) -> OpResult<(String, Ty)> {
    let handle = cx.tensor(op, 0)?;
    if handle.dtype != DType::Resource {
        return bad(format!("its operand '{}' is {}, not a resource", handle.name, handle.dtype.name()));
    }
    let Some(&index) = op.inputs[0].and_then(|t| cx.variables.handles.get(&(cx.graph_index, t))) else {
        return bad(format!("its resource '{}' is no VAR_HANDLE's output", handle.name));
    };
    let variable = &cx.variables.list[index];
    let Some(assigned) = variable.assigned else {
        return bad(format!("the variable '{}' is never assigned (TFLite Micro gives it no memory)", variable.name));
    };
    if assigned.dtype == DType::Resource {
        return unsupported(format!("the variable '{}' is {}", variable.name, assigned.dtype.name()));
    }
    let var_ty = ty(assigned);
    if let Some(symbol) = &variable.symbol {
        return Ok((symbol.clone(), var_ty));
    }
    // Every byte the int8 zero point of the first assigned value, else 0 (TFLite Micro's memset);
    // one element's bytes are a splat.
    let zero_point = assigned.quantization.as_ref().and_then(|q| q.zero_point.first()).copied().unwrap_or(0);
    let initial = match assigned.dtype {
        DType::Bool => "false".to_string(),
        dtype => hex(&vec![zero_point as i8 as u8; dtype.bytes() as usize]),
    };
    let name = format!("var_{}", variable.name);
    let symbol = cx.func.variable(&name, &var_ty, &initial);
    cx.variables.list[index].symbol = Some(symbol.clone());
    Ok((symbol, var_ty))
}
