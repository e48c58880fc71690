//! Measures how often hashline tags collide on real code.
//!
//! For every pair of lines at most 50 lines apart in each file, it counts:
//! pairs of *different* lines that share a tag (hash collisions: a mistyped
//! tag or line number could pass the check), and pairs that a wrong line
//! number would pass (the collisions plus the pairs of identical lines, which
//! share a tag by design unless the line number is hashed too). Tag lengths
//! 2 to 6, with and without the line number. "Different" compares lines
//! without trailing whitespace, as tags do.
//!
//! ```text
//! cargo run --release -p patchbay --example tag_collisions -- [DIR|FILE]...
//! ```
//!
//! Without arguments it reads the corpus sources (`tests/tools/sources`).
//! Folders are walked; files with a source or text extension below 256 KB
//! that are UTF-8 are read (larger ones are mostly generated tables). The
//! output is a Markdown table (docs/tag-collisions.md). Cost: one tag per
//! line and configuration, 50 comparisons per line.

use patchbay::formats::hashline::tags::{tag, TagOptions};
use std::path::{Path, PathBuf};

const WINDOW: usize = 50;
const EXTS: &[&str] = &[
    "py", "rs", "js", "ts", "go", "c", "h", "cc", "cpp", "java", "rb", "md", "toml", "txt",
];

fn walk(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let Ok(rd) = std::fs::read_dir(p) else { return };
        let mut v: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        v.sort();
        for q in v {
            walk(&q, out);
        }
    } else if p
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTS.contains(&e))
        && p.metadata().is_ok_and(|m| m.len() < 256 * 1024)
    {
        out.push(p.to_path_buf());
    }
}

#[derive(Default, Clone, Copy)]
struct Count {
    pairs: u64,
    /// Different lines, same tag.
    collisions: u64,
    /// Identical lines, same tag.
    identical: u64,
    /// Identical non-blank lines, same tag.
    identical_text: u64,
    /// Lines that share a tag with a different line within the window.
    lines_hit: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let roots: Vec<PathBuf> = if args.is_empty() {
        vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/tools/sources")]
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    let mut files = vec![];
    for r in &roots {
        walk(r, &mut files);
    }
    let texts: Vec<String> = files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect();
    let total_lines: usize = texts.iter().map(|t| t.lines().count()).sum();
    let configs: Vec<TagOptions> = [false, true]
        .iter()
        .flat_map(|&with_line| (2..=6).map(move |len| TagOptions { len, with_line }))
        .collect();
    let mut rows = vec![];
    for &opt in &configs {
        let mut c = Count::default();
        for t in &texts {
            let lines: Vec<&str> = t.lines().map(str::trim_end).collect();
            let tags: Vec<String> = lines
                .iter()
                .enumerate()
                .map(|(i, l)| tag(l, i + 1, opt))
                .collect();
            let mut hit = vec![false; lines.len()];
            for i in 0..lines.len() {
                for j in i + 1..lines.len().min(i + WINDOW + 1) {
                    c.pairs += 1;
                    if tags[i] == tags[j] {
                        if lines[i] == lines[j] {
                            c.identical += 1;
                            c.identical_text += u64::from(!lines[i].trim().is_empty());
                        } else {
                            c.collisions += 1;
                            hit[i] = true;
                            hit[j] = true;
                        }
                    }
                }
            }
            c.lines_hit += hit.iter().filter(|&&h| h).count() as u64;
        }
        rows.push((opt, c));
    }
    println!(
        "{} files, {} lines, {} line pairs at most {WINDOW} lines apart.\n",
        texts.len(),
        total_lines,
        rows[0].1.pairs
    );
    println!("| tag length | line number hashed | different lines sharing a tag | per pair | expected 2^-6L | lines with such a neighbour, per million | a wrong line number passes, per pair | the same, blank lines left out |");
    println!("|---|---|---|---|---|---|---|---|");
    for (opt, c) in rows {
        let per_pair = c.collisions as f64 / c.pairs.max(1) as f64;
        let expected = 2f64.powi(-6 * opt.len as i32);
        let lines_ppm = 1e6 * c.lines_hit as f64 / total_lines.max(1) as f64;
        let pairs = c.pairs.max(1) as f64;
        let passes = (c.collisions + c.identical) as f64 / pairs;
        let passes_text = (c.collisions + c.identical_text) as f64 / pairs;
        println!(
            "| {} | {} | {} | {per_pair:.1e} | {expected:.1e} | {lines_ppm:.0} | {passes:.1e} | {passes_text:.1e} |",
            opt.len,
            if opt.with_line { "yes" } else { "no" },
            c.collisions,
        );
    }
}
