//! Builds one pass manager from a pipeline string that mixes umac and upstream passes.

use crate::stderr_capture::capture_stderr;
use crate::{
    Error,
    options::parse_options,
    pipeline_syntax::{Element, PipelineError, parse_anchored, parse_list},
    registry::{PassKind, lookup},
};
use melior::{
    Context,
    ir::OperationRef,
    pass::{OperationPassManager, PassManager},
};
use mlir_sys::{mlirOpPassManagerAddPipeline, mlirPassManagerCreateOnOperation, mlirPassManagerRunOnOp};
use umac_dialects::text::{collect, str_ref};

/// Runs `pipeline` (pipeline text anchored on `func.func`, e.g. `canonicalize,cse`) on `function`
/// alone. A failing pass has reported its errors.
pub fn run_on_function(context: &Context, function: OperationRef, pipeline: &str) -> Result<(), Error> {
    let manager = build_pass_manager(context, &format!("func.func({pipeline})"), "func.func")?;
    // SAFETY: the pass manager is anchored on func.func and `function` is a live func.func, which
    // outlives the run.
    let result = unsafe { mlirPassManagerRunOnOp(manager.to_raw(), function.to_raw()) };
    if result.value == 0 { Err(Error::Reported) } else { Ok(()) }
}

/// How deep named pipelines may expand into each other (a cycle would otherwise never end).
const MAX_EXPANSION_DEPTH: usize = 16;

/// Builds a pass manager for `pipeline` (e.g. `builtin.module(umac-verify,func.func(cse))`) that
/// will run on operations named `root`. Errors carry the byte offset in `pipeline` they concern.
pub fn build_pass_manager<'c>(
    context: &'c Context,
    pipeline: &str,
    root: &str,
) -> Result<PassManager<'c>, PipelineError> {
    let (anchor, elements) = parse_anchored(pipeline)?;
    if anchor != root {
        return Err(PipelineError::new(
            format!("the pipeline is anchored on '{anchor}' but the input's top-level operation is '{root}'"),
            pipeline.len() - pipeline.trim_start().len(),
        ));
    }
    // SAFETY: the anchor string is alive for the call; the new pass manager is owned by the
    // returned PassManager, which frees it on drop.
    let manager =
        unsafe { PassManager::from_raw(mlirPassManagerCreateOnOperation(context.to_raw(), str_ref(&anchor))) };
    Builder { context, text: pipeline }.add(&manager.as_operation_pass_manager(), &anchor, &elements, 0)?;
    Ok(manager)
}

struct Builder<'c, 't> {
    context: &'c Context,
    /// The pipeline text the elements' spans refer to.
    text: &'t str,
}

impl Builder<'_, '_> {
    fn add(
        &self,
        manager: &OperationPassManager,
        anchor: &str,
        elements: &[Element],
        depth: usize,
    ) -> Result<(), PipelineError> {
        for element in elements {
            match element {
                Element::Pass { name, options, span, options_offset } => match lookup(name) {
                    Some(info) => {
                        if !info.runs_on(anchor) {
                            return Err(PipelineError::new(
                                format!(
                                    "'{name}' runs on '{}' and cannot be placed in a pipeline on '{anchor}'",
                                    info.anchor
                                ),
                                span.0,
                            ));
                        }
                        let values = parse_options(name, info.options, options.as_deref(), *options_offset)?;
                        match info.kind {
                            PassKind::Pass(create) => manager.add_pass(create(&values)),
                            PassKind::Named(create) => manager.add_pass(create(info.name, &values)),
                            PassKind::Pipeline(expand) => {
                                self.expand(manager, anchor, name, &expand(&values), span.0, depth)?
                            }
                        }
                    }
                    None => self.add_upstream(manager, *span)?,
                },
                Element::Nested { anchor: nested, elements, span } => {
                    if !mentions_umac(elements) {
                        // MLIR's own parser handles pure upstream nests, `any(...)` included.
                        self.add_upstream(manager, *span)?;
                    } else if nested == "any" || !self.context.is_registered_operation(nested) {
                        return Err(PipelineError::new(
                            format!("umac passes can only be nested under a registered operation, not '{nested}'"),
                            span.0,
                        ));
                    } else {
                        self.add(&manager.nested_under(nested), nested, elements, depth)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn expand(
        &self,
        manager: &OperationPassManager,
        anchor: &str,
        name: &str,
        expansion: &str,
        at: usize,
        depth: usize,
    ) -> Result<(), PipelineError> {
        let in_expansion =
            |e: PipelineError| PipelineError::new(format!("in pipeline '{name}' ({expansion}): {}", e.message), at);
        if depth >= MAX_EXPANSION_DEPTH {
            return Err(PipelineError::new(
                format!("pipeline '{name}' expands more than {MAX_EXPANSION_DEPTH} levels deep"),
                at,
            ));
        }
        let elements = parse_list(expansion).map_err(in_expansion)?;
        Builder { context: self.context, text: expansion }
            .add(manager, anchor, &elements, depth + 1)
            .map_err(in_expansion)
    }

    /// Appends upstream pipeline text to `manager` through MLIR's own pipeline parser.
    fn add_upstream(&self, manager: &OperationPassManager, (start, end): (usize, usize)) -> Result<(), PipelineError> {
        let text = &self.text[start..end];
        let mut message = Vec::<u8>::new();
        // SAFETY: the text and the message buffer outlive the call; the callback only appends to
        // the byte buffer it is handed.
        let (result, stray) = capture_stderr(|| unsafe {
            mlirOpPassManagerAddPipeline(
                manager.to_raw(),
                str_ref(text),
                Some(collect),
                (&mut message as *mut Vec<u8>).cast(),
            )
        });
        if result.value != 0 {
            return Ok(());
        }
        let (column, message) = upstream_error(&format!("{stray}{}", String::from_utf8_lossy(&message)));
        Err(PipelineError::new(message, start + column.min(text.len())))
    }
}

/// Tells whether any element (at any depth) is a umac pass or pipeline.
fn mentions_umac(elements: &[Element]) -> bool {
    elements.iter().any(|element| match element {
        Element::Pass { name, .. } => lookup(name).is_some(),
        Element::Nested { elements, .. } => mentions_umac(elements),
    })
}

/// Splits MLIR's pipeline-parser report into the 0-based column and the message. The report is
/// either `<name>:1:COL: error: MESSAGE` plus the pipeline and a caret, or (for pass options) loose
/// lines, which become one message.
fn upstream_error(report: &str) -> (usize, String) {
    let first = report.trim_start().lines().next().unwrap_or_default();
    let Some((location, message)) = first.split_once(": error: ") else {
        let lines: Vec<&str> = report
            .lines()
            .map(|line| line.trim().trim_start_matches("<Pass-Options-Parser>:").trim_start_matches(':').trim())
            .filter(|line| !line.is_empty())
            .collect();
        let message = if lines.is_empty() { "invalid pass pipeline".to_string() } else { lines.join("; ") };
        return (0, message);
    };
    let column = location.rsplit(':').next().and_then(|c| c.parse::<usize>().ok()).map_or(0, |c| c.saturating_sub(1));
    (column, message.to_string())
}

#[cfg(test)]
mod tests {
    use super::upstream_error;

    #[test]
    fn splits_upstream_reports() {
        let report = "MLIR Textual PassPipeline Parser:1:5: error: 'foo' does not refer to a registered pass\nfoo\n^\n";
        assert_eq!(upstream_error(report), (4, "'foo' does not refer to a registered pass".to_string()));
        assert_eq!(upstream_error(""), (0, "invalid pass pipeline".to_string()));
        let options = "<Pass-Options-Parser>: no such option bogus\n\nfailed to add `cse` with options `bogus=1`\n";
        assert_eq!(upstream_error(options).1, "no such option bogus; failed to add `cse` with options `bogus=1`");
        let stray = ": for the --n option: 'x' value invalid!\n\nfailed to add `cse`\n";
        assert_eq!(upstream_error(stray).1, "for the --n option: 'x' value invalid!; failed to add `cse`");
    }
}
