//! Rewrites the generated `.d.ts` files of the bindings (see the library).

fn main() -> std::io::Result<()> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (path, text) in patchbay_types::files() {
        std::fs::write(root.join(path), text)?;
        println!("wrote {path}");
    }
    Ok(())
}
