//! The MLIR context umac works in.

use melior::{
    Context,
    dialect::DialectRegistry,
    utility::{register_all_dialects, register_all_llvm_translations, register_all_passes},
};

/// How a context is set up.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContextOptions {
    /// Accept operations of dialects nobody registered (`--allow-unregistered-dialect`).
    ///
    /// The context always lets the parser through such ops, because the `umac` dialect is made of
    /// unregistered ops (see [`crate::umac`]); this flag decides whether the umac verifier then
    /// rejects foreign ones, as `mlir-opt` would.
    pub allow_unregistered_dialects: bool,
    /// Run nested passes on MLIR's thread pool.
    pub threading: bool,
}

/// Creates a context with every upstream dialect, pass and LLVM translation registered.
pub fn create_context(options: ContextOptions) -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new_with_registry(&registry, options.threading);
    context.load_all_available_dialects();
    register_all_passes();
    register_all_llvm_translations(&context);
    // umac ops are unregistered ops checked by `umac::verify`; see the module doc there.
    context.set_allow_unregistered_dialects(true);
    context
}
