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
    pub allow_unregistered_dialects: bool,
    /// Run nested passes on MLIR's thread pool.
    pub threading: bool,
}

/// Creates a context with every upstream dialect, pass and LLVM translation and the umac
/// dialect registered.
pub fn create_context(options: ContextOptions) -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    crate::native::register_dialect(&registry, crate::umac::verify_op_hook, crate::umac::verify_attribute_hook);
    let context = Context::new_with_registry(&registry, options.threading);
    context.load_all_available_dialects();
    register_all_passes();
    register_all_llvm_translations(&context);
    context.set_allow_unregistered_dialects(options.allow_unregistered_dialects);
    context
}
