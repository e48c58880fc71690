//! A fixed amount of counting work for instruction counts (`valgrind
//! --tool=callgrind`), which unlike seconds do not depend on what else the
//! machine runs. Counts the committed samples ITERS times after one warm-up
//! pass (which builds an exact vocabulary and fills its piece cache).
//!
//! Usage: token_instructions TOKENIZER ITERS
//! Instructions per byte = (refs(ITERS=30) - refs(ITERS=10)) / (20 × bytes);
//! `docs/benchmarks.md` has the figures and the loop that computes them.

use patchbay::budget::tokens::Tokenizer;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(iters)) = (args.first(), args.get(1).and_then(|n| n.parse().ok())) else {
        eprintln!("usage: token_instructions TOKENIZER ITERS");
        std::process::exit(2);
    };
    let t = Tokenizer::parse(name).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![];
    for d in ["tests/tokens/samples", "tests/tools/sources"] {
        for e in std::fs::read_dir(root.join(d)).expect("samples folder") {
            files.push(std::fs::read_to_string(e.expect("entry").path()).expect("sample"));
        }
    }
    let warm: usize = files.iter().map(|f| t.count(f)).sum();
    let mut n = 0;
    for _ in 0..iters {
        n += files
            .iter()
            .map(|f| t.count(std::hint::black_box(f)))
            .sum::<usize>();
    }
    let bytes: usize = files.iter().map(String::len).sum();
    println!("{bytes} bytes, {warm} tokens; {iters} passes, {n} tokens");
}
