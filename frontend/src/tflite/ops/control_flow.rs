//! IF and WHILE: their subgraphs written inside `tosa.cond_if` and `tosa.while_loop` regions,
//! which upstream's `tosa-to-scf` makes `scf.if` and `scf.while`.
//!
//! IF passes its operands after the condition to the subgraph the condition picks (TFLite
//! Micro reads the condition's first element) and gives that subgraph's outputs. WHILE carries
//! its operands as loop variables: the condition subgraph sees them and gives a BOOL, the body
//! subgraph gives their next values, and WHILE's outputs are their last values. Every subgraph's
//! inputs and outputs must have the types of the operands and outputs they stand for (TFLite
//! Micro copies the bytes between them).

use super::{Cx, OpResult, bad, legalize_subgraph, ty, unsupported};
use crate::tflite::{
    emit::{Ty, Value},
    model::{DType, Operator, Options},
};

/// How deep IF, WHILE and CALL_ONCE may nest.
const MAX_NESTING: usize = 8;

pub fn if_op(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::If { then_graph, else_graph } = op.options else { return bad("its options are not an IF's") };
    let condition = condition(cx, op, 0)?;
    let operands: Vec<Value> = (1..op.inputs.len()).map(|k| cx.value(op, k)).collect::<OpResult<_>>()?;
    let types = output_types(cx, op)?;
    let mut list = vec![condition.clone()];
    list.extend(operands.iter().cloned());
    let (head, results) = cx.func.results(&types);
    cx.func.open(&format!("{head}\"tosa.cond_if\"({}) ({{", names(&list)));
    for (k, (g, what)) in [(then_graph, "then"), (else_graph, "else")].into_iter().enumerate() {
        if k == 1 {
            cx.func.open("}, {");
        }
        let arguments = cx.func.block(&operands.iter().map(|v| v.ty.clone()).collect::<Vec<_>>());
        let outputs = subgraph(cx, g, &arguments, &format!("{what} subgraph"))?;
        check_types(&outputs, &types, &format!("its {what} subgraph {g} gives"))?;
        cx.func.yield_values(&outputs);
    }
    cx.func.statement(&format!("}}) : ({}) -> ({})", type_list(&list), ty_list(&types)));
    for (k, result) in results.into_iter().enumerate() {
        cx.define(op, k, result)?;
    }
    Ok(())
}

pub fn while_op(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::While { cond_graph, body_graph } = op.options else { return bad("its options are not a WHILE's") };
    let operands: Vec<Value> = (0..op.inputs.len()).map(|k| cx.value(op, k)).collect::<OpResult<_>>()?;
    let types: Vec<Ty> = operands.iter().map(|v| v.ty.clone()).collect();
    check_types(&operands, &output_types(cx, op)?, "its outputs are not its operands' types:")?;
    let (head, results) = cx.func.results(&types);
    cx.func.open(&format!("{head}\"tosa.while_loop\"({}) ({{", names(&operands)));
    let arguments = cx.func.block(&types);
    let outputs = subgraph(cx, cond_graph, &arguments, "condition subgraph")?;
    match outputs.as_slice() {
        [flag] if flag.ty.elem == "i1" && flag.ty.shape.iter().product::<i64>() == 1 => {
            let flag = cx.func.reshape(flag, &[]);
            cx.func.yield_values(&[flag]);
        }
        _ => return bad(format!("its condition subgraph {cond_graph} does not give one BOOL")),
    }
    cx.func.open("}, {");
    let arguments = cx.func.block(&types);
    let outputs = subgraph(cx, body_graph, &arguments, "body subgraph")?;
    check_types(&outputs, &types, &format!("its body subgraph {body_graph} gives"))?;
    cx.func.yield_values(&outputs);
    cx.func.statement(&format!("}}) : ({}) -> ({})", type_list(&operands), ty_list(&types)));
    for (k, result) in results.into_iter().enumerate() {
        cx.define(op, k, result)?;
    }
    Ok(())
}

/// Writes subgraph `g` (the op's `role`: "then subgraph", "init subgraph", ...) inside the region
/// being written, its inputs bound to `inputs`; returns its outputs. Its errors name its operator;
/// a subgraph already being written (a cycle) is an error.
pub(crate) fn subgraph(cx: &mut Cx, g: i64, inputs: &[Value], role: &str) -> OpResult<Vec<Value>> {
    let count = cx.model.subgraphs.len();
    let Some(g) = usize::try_from(g).ok().filter(|&g| g > 0 && g < count) else {
        return bad(match count {
            1 => format!("its {role} is {g}, and the model has no other subgraph than the main one"),
            n => format!("its {role} {g} is not one of the model's subgraphs 1 to {}", n - 1),
        });
    };
    if g == cx.graph_index || cx.active.contains(&g) {
        return bad(format!("its {role} {g} is already being run (subgraphs calling each other in a cycle)"));
    }
    if cx.active.len() >= MAX_NESTING {
        return unsupported(format!("its {role} {g} nests IF, WHILE and CALL_ONCE over {MAX_NESTING} deep"));
    }
    let graph = &cx.model.subgraphs[g];
    let wanted: Vec<Ty> = graph.inputs.iter().map(|&t| ty(&graph.tensors[t])).collect();
    let given: Vec<Ty> = inputs.iter().map(|v| v.ty.clone()).collect();
    if wanted != given {
        return bad(format!("its {role} {g} takes ({}), it passes ({})", ty_list(&wanted), ty_list(&given)));
    }
    let location = cx.func.location();
    let outputs = legalize_subgraph(cx, g, inputs).or_else(|e| {
        let at = e.operator.map(|o| format!(", {o}")).unwrap_or_default();
        let message = format!("in its {role} {g}{at}: {}", e.message);
        if e.unsupported { unsupported(message) } else { bad(message) }
    })?;
    cx.func.restore_location(location);
    Ok(outputs)
}

/// The one-element BOOL operand `k` as a `tensor<i1>`.
fn condition(cx: &mut Cx, op: &Operator, k: usize) -> OpResult<Value> {
    let tensor = cx.tensor(op, k)?;
    if tensor.dtype != DType::Bool || tensor.elements() != 1 {
        return bad(format!(
            "its condition '{}' is {:?} {}, not one BOOL",
            tensor.name,
            tensor.shape,
            tensor.dtype.name()
        ));
    }
    let value = cx.value(op, k)?;
    Ok(cx.func.reshape(&value, &[]))
}

/// The types of the op's outputs.
fn output_types(cx: &Cx, op: &Operator) -> OpResult<Vec<Ty>> {
    (0..op.outputs.len()).map(|k| cx.output(op, k).map(ty)).collect()
}

fn check_types(values: &[Value], types: &[Ty], what: &str) -> OpResult {
    let given: Vec<Ty> = values.iter().map(|v| v.ty.clone()).collect();
    if given != types {
        return bad(format!("{what} ({}), its outputs are ({})", ty_list(&given), ty_list(types)));
    }
    Ok(())
}

fn names(values: &[Value]) -> String {
    values.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", ")
}

fn type_list(values: &[Value]) -> String {
    values.iter().map(Value::type_text).collect::<Vec<_>>().join(", ")
}

fn ty_list(types: &[Ty]) -> String {
    types.iter().map(Ty::text).collect::<Vec<_>>().join(", ")
}
