//! Generates the flatbuffer accessors of `schema/tflite.fbs` with planus.

fn main() {
    let schema = "schema/tflite.fbs";
    println!("cargo::rerun-if-changed={schema}");
    let declarations = planus_translation::translate_files(&[schema]).expect("schema/tflite.fbs does not translate");
    let code = planus_codegen::generate_rust(&declarations, false).expect("planus cannot generate the accessors");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("tflite_schema.rs"), code).expect("cannot write the generated accessors");
}
