//! Building pass managers from pipeline text. umac passes and pipelines live in MLIR's own pass
//! registry (see [`crate::pass`]), so a pipeline mixing them with upstream passes is parsed by
//! MLIR's parser, exactly as `mlir-opt --pass-pipeline` parses it.

use crate::{Error, pass::export_to_mlir, stderr_capture::capture_stderr};
use melior::{Context, ir::OperationRef, pass::PassManager};
use mlir_sys::{
    mlirParsePassPipeline, mlirPassManagerCreateOnOperation, mlirPassManagerGetAsOpPassManager, mlirPassManagerRunOnOp,
};
use thiserror::Error as ThisError;
use umac_dialects::text::{collect, str_ref};

/// A problem in a pipeline string, at a byte offset of it.
#[derive(Clone, Debug, ThisError, PartialEq, Eq)]
#[error("{message}")]
pub struct PipelineError {
    /// What is wrong.
    pub message: String,
    /// Byte offset into the pipeline string.
    pub offset: usize,
}

impl PipelineError {
    /// Creates an error at `offset`.
    pub fn new(message: impl Into<String>, offset: usize) -> Self {
        Self { message: message.into(), offset }
    }
}

/// Builds a pass manager for `pipeline` (e.g. `builtin.module(umac-verify,func.func(cse))`) that
/// will run on operations named `root`. Errors carry the byte offset in `pipeline` they concern.
pub fn build_pass_manager<'c>(
    context: &'c Context,
    pipeline: &str,
    root: &str,
) -> Result<PassManager<'c>, PipelineError> {
    export_to_mlir();
    // SAFETY: the anchor string is alive for the call; the new pass manager is owned by the
    // returned PassManager, which frees it on drop.
    let manager = unsafe { PassManager::from_raw(mlirPassManagerCreateOnOperation(context.to_raw(), str_ref(root))) };
    let mut message = Vec::<u8>::new();
    // SAFETY: the text and the message buffer outlive the call; the callback only appends to the
    // byte buffer it is handed. MLIR's option parser writes some errors to stderr, captured.
    let (result, stray) = capture_stderr(|| unsafe {
        mlirParsePassPipeline(
            mlirPassManagerGetAsOpPassManager(manager.to_raw()),
            str_ref(pipeline),
            Some(collect),
            (&mut message as *mut Vec<u8>).cast(),
        )
    });
    if result.value != 0 {
        return Ok(manager);
    }
    let (column, message) = mlir_error(&format!("{stray}{}", String::from_utf8_lossy(&message)));
    Err(PipelineError::new(message, column.min(pipeline.len())))
}

/// Runs `pipeline` (pipeline text anchored on `func.func`, e.g. `canonicalize,cse`) on `function`
/// alone. A failing pass has reported its errors.
pub fn run_on_function(context: &Context, function: OperationRef, pipeline: &str) -> Result<(), Error> {
    let manager = build_pass_manager(context, &format!("func.func({pipeline})"), "func.func")?;
    // SAFETY: the pass manager is anchored on func.func and `function` is a live func.func, which
    // outlives the run.
    let result = unsafe { mlirPassManagerRunOnOp(manager.to_raw(), function.to_raw()) };
    if result.value == 0 { Err(Error::Reported) } else { Ok(()) }
}

/// Splits MLIR's pipeline-parser report into the 0-based column and the message. The report is
/// either `<name>:1:COL: error: MESSAGE` plus the pipeline and a caret, or (for pass options) loose
/// lines, which become one message.
fn mlir_error(report: &str) -> (usize, String) {
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
    use super::mlir_error;

    #[test]
    fn splits_mlir_reports() {
        let report = "MLIR Textual PassPipeline Parser:1:5: error: 'foo' does not refer to a registered pass\nfoo\n^\n";
        assert_eq!(mlir_error(report), (4, "'foo' does not refer to a registered pass".to_string()));
        assert_eq!(mlir_error(""), (0, "invalid pass pipeline".to_string()));
        let options = "<Pass-Options-Parser>: no such option bogus\n\nfailed to add `cse` with options `bogus=1`\n";
        assert_eq!(mlir_error(options).1, "no such option bogus; failed to add `cse` with options `bogus=1`");
        let stray = ": for the --n option: 'x' value invalid!\n\nfailed to add `cse`\n";
        assert_eq!(mlir_error(stray).1, "for the --n option: 'x' value invalid!; failed to add `cse`");
    }
}
