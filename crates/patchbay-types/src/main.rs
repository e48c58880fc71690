//! Rewrites the generated `.d.ts` files of the bindings (see the library);
//! with `--check`, only says which are stale (exit 1), changing nothing.

fn main() -> std::io::Result<()> {
    let check = std::env::args().any(|a| a == "--check");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut stale = false;
    for (path, text) in patchbay_types::files() {
        let file = root.join(path);
        if std::fs::read_to_string(&file).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        if check {
            eprintln!("{path} is stale: run `cargo run -p patchbay-types`");
            stale = true;
        } else {
            std::fs::write(file, text)?;
            println!("wrote {path}");
        }
    }
    if stale {
        std::process::exit(1);
    }
    Ok(())
}
