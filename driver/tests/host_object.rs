//! Host objects from both engines link into a shared library with the system C compiler, load
//! with `dlopen`, and compute what TFLite Micro computes.

use std::process::Command;
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::create_context;
use umac_driver::{
    host::{ENGINES, ENTRY_SYMBOL, compile_object},
    signature::dtype_of,
};
use umac_runtime::{Tensor, read_npy, testdata};

#[test]
fn host_objects_link_load_and_run_bit_exact() {
    let dir = testdata::dir("models/mlperf-tiny/kws");
    let input = read_npy(&dir.join("ref/input_0.npy")).unwrap();
    let expected = read_npy(&dir.join("ref/output_0.npy")).unwrap();
    let work = std::env::temp_dir().join(format!("umac-host-object-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    for engine in ENGINES {
        let context = create_context(ContextOptions::default());
        let path = dir.join("model.mlir");
        let bytes = std::fs::read(&path).unwrap();
        let mut module = parse_module(&context, "kws", &bytes).unwrap();
        let compiled = compile_object(&context, &mut module, "main", std::slice::from_ref(&input), *engine).unwrap();
        let (object, signature) = (compiled.object, compiled.signature);
        let mut workspace = vec![0u128; (compiled.workspace_size as usize).div_ceil(16).max(1)];
        let (obj, lib) = (work.join(format!("{}.o", engine.name())), work.join(format!("lib{}.so", engine.name())));
        std::fs::write(&obj, object).unwrap();
        let status = Command::new("cc").args(["-shared", "-o"]).arg(&lib).arg(&obj).arg("-lm").status().unwrap();
        assert!(status.success(), "linking the {} object failed", engine.name());
        let out_sig = &signature.outputs[0];
        let shape: Vec<usize> = out_sig.shape.iter().map(|d| d.unwrap() as usize).collect();
        let mut output = Tensor::zeros(dtype_of(out_sig.element).unwrap(), &shape);
        // SAFETY: the library exports ENTRY_SYMBOL with this signature; the buffers have the
        // model's input and output sizes.
        unsafe {
            let library = libloading::Library::new(&lib).unwrap();
            let run: libloading::Symbol<unsafe extern "C" fn(*const *const u8, *const *mut u8, *mut u8) -> i32> =
                library.get(ENTRY_SYMBOL.as_bytes()).unwrap();
            let inputs = [input.data.as_ptr()];
            let outputs = [output.data.as_mut_ptr()];
            assert_eq!(run(inputs.as_ptr(), outputs.as_ptr(), workspace.as_mut_ptr().cast()), 0);
        }
        assert_eq!(output, expected, "{}", engine.name());
    }
    std::fs::remove_dir_all(work).unwrap();
}
