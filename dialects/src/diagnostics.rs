//! Diagnostics out of MLIR, as plain Rust values.
//!
//! The handler is attached through the C API directly (not melior's) so that a message with
//! bytes that are not UTF-8 becomes a lossy string instead of a panic inside a callback that
//! cannot unwind.

use crate::{
    location::{FileLineCol, file_line_col},
    text::{collect, lossy},
};
use melior::{Context, ir::Location};
use mlir_sys::{
    MlirDiagnostic, MlirDiagnosticSeverity_MlirDiagnosticError, MlirDiagnosticSeverity_MlirDiagnosticNote,
    MlirDiagnosticSeverity_MlirDiagnosticRemark, MlirLogicalResult, mlirContextAttachDiagnosticHandler,
    mlirContextDetachDiagnosticHandler, mlirDiagnosticGetLocation, mlirDiagnosticGetNote, mlirDiagnosticGetNumNotes,
    mlirDiagnosticGetSeverity, mlirDiagnosticPrint,
};
use std::ffi::c_void;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// An error: the run fails.
    Error,
    /// A warning.
    Warning,
    /// A note attached to another diagnostic.
    Note,
    /// A remark.
    Remark,
}

impl Severity {
    /// The word MLIR prints and `expected-<word>` uses.
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }
}

/// A diagnostic copied out of MLIR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    /// How serious.
    pub severity: Severity,
    /// Where, if the location resolves to a file position.
    pub location: Option<FileLineCol>,
    /// The message.
    pub message: String,
    /// Attached notes.
    pub notes: Vec<Diag>,
}

impl Diag {
    /// An error at a resolved location.
    pub fn error(location: Option<FileLineCol>, message: impl Into<String>) -> Self {
        Self { severity: Severity::Error, location, message: message.into(), notes: Vec::new() }
    }

    /// Copies a diagnostic out of MLIR.
    ///
    /// # Safety
    /// `raw` must be a live diagnostic (as inside a diagnostic handler).
    unsafe fn from_raw(raw: MlirDiagnostic) -> Self {
        // SAFETY: `raw` is live (caller's contract); every accessor only reads it.
        unsafe {
            #[allow(non_upper_case_globals)]
            let severity = match mlirDiagnosticGetSeverity(raw) {
                MlirDiagnosticSeverity_MlirDiagnosticError => Severity::Error,
                MlirDiagnosticSeverity_MlirDiagnosticNote => Severity::Note,
                MlirDiagnosticSeverity_MlirDiagnosticRemark => Severity::Remark,
                _ => Severity::Warning,
            };
            let mut message = Vec::new();
            mlirDiagnosticPrint(raw, Some(collect), (&mut message as *mut Vec<u8>).cast());
            let location = file_line_col(Location::from_raw(mlirDiagnosticGetLocation(raw)));
            let notes =
                (0..mlirDiagnosticGetNumNotes(raw)).map(|i| Diag::from_raw(mlirDiagnosticGetNote(raw, i))).collect();
            Self { severity, location, message: lossy(message), notes }
        }
    }
}

/// Identifies an attached handler, to detach it.
#[derive(Clone, Copy, Debug)]
pub struct HandlerId(u64);

/// Attaches `handler` to `context`: it sees every diagnostic first and returns whether it handled
/// it (`false` passes it on to the handlers attached before it).
pub fn attach_handler<F: FnMut(&Diag) -> bool + 'static>(context: &Context, handler: F) -> HandlerId {
    unsafe extern "C" fn handle<F: FnMut(&Diag) -> bool>(raw: MlirDiagnostic, data: *mut c_void) -> MlirLogicalResult {
        // SAFETY: MLIR calls this with a live diagnostic and the `F` boxed below, which it owns
        // until `destroy`.
        let handled = unsafe { (*data.cast::<F>())(&Diag::from_raw(raw)) };
        MlirLogicalResult { value: i8::from(handled) }
    }
    unsafe extern "C" fn destroy<F>(data: *mut c_void) {
        // SAFETY: `data` is the box leaked in attach_handler; MLIR calls this exactly once.
        drop(unsafe { Box::from_raw(data.cast::<F>()) });
    }
    let data = Box::into_raw(Box::new(handler)).cast::<c_void>();
    // SAFETY: the callbacks match the C signatures; MLIR owns `data` until it calls `destroy`.
    HandlerId(unsafe {
        mlirContextAttachDiagnosticHandler(context.to_raw(), Some(handle::<F>), data, Some(destroy::<F>))
    })
}

/// Detaches a handler attached with [`attach_handler`].
pub fn detach_handler(context: &Context, id: HandlerId) {
    // SAFETY: the context is alive; detaching an id twice is a no-op in MLIR.
    unsafe { mlirContextDetachDiagnosticHandler(context.to_raw(), id.0) }
}
