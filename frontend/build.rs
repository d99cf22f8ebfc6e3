//! Generates the flatbuffer accessors of the schemas in `schema/` with planus.

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for (schema, generated) in [("schema/tflite.fbs", "tflite_schema.rs"), ("schema/tosa.fbs", "tosa_schema.rs")] {
        println!("cargo::rerun-if-changed={schema}");
        let declarations =
            planus_translation::translate_files(&[schema]).unwrap_or_else(|| panic!("{schema} does not translate"));
        let code = planus_codegen::generate_rust(&declarations, false)
            .unwrap_or_else(|e| panic!("planus cannot generate the accessors of {schema}: {e}"));
        std::fs::write(out.join(generated), code).unwrap_or_else(|e| panic!("cannot write {generated}: {e}"));
    }
}
