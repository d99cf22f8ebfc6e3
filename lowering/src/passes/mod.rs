//! umac passes written in Rust, one file each.

/// The identity and constructor of an option-less umac pass: `PASS_ID` (MLIR tells passes apart
/// by its address) and `fn create(&OptionValues) -> Pass`, building the external pass `$pass`
/// under the module's registry entry `INFO`. Passes are zero-sized values: melior 0.27 drops an
/// external pass's state in place but never frees its box.
macro_rules! external_pass {
    ($pass:expr, $class:literal) => {
        #[repr(align(8))]
        struct PassId;
        static PASS_ID: PassId = PassId;

        fn create(_: &crate::options::OptionValues) -> melior::pass::Pass {
            melior::pass::create_external(
                $pass,
                melior::ir::r#type::TypeId::create(&PASS_ID),
                $class,
                INFO.name,
                INFO.summary,
                "",
                &[],
            )
        }
    };
}

pub mod fold_padding;
pub mod fold_zero_points;
pub mod lower_call_extern;
pub mod outline_operators;
pub mod plan_memory;
pub mod splice;
pub mod split_borders;
pub mod strided_copy;
pub mod tile_and_fuse;
pub mod transpose_conv;
pub mod verify;
