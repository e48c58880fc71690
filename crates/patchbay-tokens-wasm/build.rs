//! Gives the wasm module a 4 MB stack instead of wasm-ld's 1 MB default:
//! tiktoken's piece cache overflows 1 MB in a module built for size
//! (opt-level "z"; "memory access out of bounds" on a 6 KB file).
//! A link argument of this crate's cdylib only, so no other module and no
//! RUSTFLAGS change.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-cdylib=-zstack-size=4194304");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
