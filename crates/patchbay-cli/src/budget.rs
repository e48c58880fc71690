//! The token commands: `tokens` (count files), `compare` (every format's
//! edit for a change, and which to use) and `budget` (what fits in a
//! context window). Each reads its files, calls one core function and
//! prints text or JSON; none writes anything. Their arguments and help
//! texts are in `token_args.rs`.

use crate::small::read;
pub use crate::token_args::{help, parse, BudgetArgs, TokenCmd};
use crate::{out, Failure};
use patchbay::budget::advisor::{compare, CompareOptions};
use patchbay::budget::tokens::Tokenizer;
use patchbay::budget::{
    plan, ExpectedOutput, FileInput, LineNumbers, Named, PlanOptions, Request, Section,
};

fn tokenizer(name: &str) -> Result<Tokenizer, Failure> {
    Tokenizer::parse(name).map_err(|e| Failure::Usage(e.to_string()))
}

fn number(flag: &str, v: Option<&str>, default: usize) -> Result<usize, Failure> {
    match v {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|_| Failure::Usage(format!("{flag} takes a whole number, not {v:?}"))),
    }
}

/// Prints pretty JSON (`serde_json::to_string_pretty`'s result).
fn json(s: serde_json::Result<String>) -> Result<(), Failure> {
    let s = s.map_err(|e| Failure::Io(e.to_string()))?;
    out(&format!("{s}\n"));
    Ok(())
}

/// Runs a token command.
pub fn run(c: &TokenCmd) -> Result<i32, Failure> {
    match c {
        TokenCmd::Tokens {
            files,
            tokenizer: name,
            json: as_json,
        } => tokens(files, name, *as_json),
        TokenCmd::Compare {
            before,
            after,
            tokenizer: name,
            whole_below,
            whole_above,
            json: as_json,
        } => {
            let d = CompareOptions::default();
            let pct = match whole_above {
                None => d.whole_above_change,
                Some(v) => match v.trim_end_matches('%').parse::<f64>() {
                    Ok(p) if (0.0..=100.0).contains(&p) => p / 100.0,
                    _ => {
                        return Err(Failure::Usage(format!(
                            "--whole-above takes a percentage from 0 to 100, not {v:?}"
                        )))
                    }
                },
            };
            let opt = CompareOptions {
                path: before.clone(),
                tokenizer: tokenizer(name)?,
                whole_below_lines: number("--whole-below", whole_below.as_deref(), 300)?,
                whole_above_change: pct,
            };
            let c = compare(&read(before)?, &read(after)?, &opt);
            if *as_json {
                json(serde_json::to_string_pretty(&c))?;
                return Ok(0);
            }
            if c.formats.is_empty() {
                out(&format!(
                    "BEFORE and AFTER are identical ({}): there is nothing to edit.\n",
                    plural(c.lines_before, "line")
                ));
                return Ok(0);
            }
            let mut s = format!(
                "BEFORE {}, AFTER {}; {} changed ({:.1}%); tokens by {}\n\n{:<16} {:>8} {:>8}  applies back\n",
                plural(c.lines_before, "line"),
                plural(c.lines_after, "line"),
                plural(c.changed_lines, "line"),
                100.0 * c.change_ratio,
                c.tokenizer.name(),
                "format",
                "bytes",
                "tokens"
            );
            for f in &c.formats {
                let ok = match &f.problem {
                    None => "yes".to_string(),
                    Some(p) => format!("no: {p}"),
                };
                s.push_str(&format!(
                    "{:<16} {:>8} {:>8}  {ok}\n",
                    f.format, f.bytes, f.tokens
                ));
            }
            s.push_str(&format!(
                "\nrecommended: {}\n  {}\n",
                c.recommendation.format, c.recommendation.reason
            ));
            out(&s);
            Ok(0)
        }
        TokenCmd::Budget(b) => budget(b),
    }
}

/// `1 line`, `2 lines`.
fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn tokens(files: &[String], name: &str, as_json: bool) -> Result<i32, Failure> {
    let tks: Vec<Tokenizer> = if name == "all" {
        Tokenizer::names()
            .iter()
            .filter(|n| *n != "estimate")
            .map(|n| tokenizer(n))
            .collect::<Result<_, _>>()?
    } else {
        vec![tokenizer(name)?]
    };
    let texts: Vec<String> = files.iter().map(|f| read(f)).collect::<Result<_, _>>()?;
    let counts: Vec<Vec<usize>> = texts
        .iter()
        .map(|t| tks.iter().map(|k| k.count(t)).collect())
        .collect();
    let totals: Vec<usize> = (0..tks.len())
        .map(|i| counts.iter().map(|c| c[i]).sum())
        .collect();
    if as_json {
        let rows: Vec<serde_json::Value> = files
            .iter()
            .zip(&texts)
            .zip(&counts)
            .map(|((f, t), c)| {
                let by: serde_json::Map<String, serde_json::Value> = tks
                    .iter()
                    .zip(c)
                    .map(|(k, n)| (k.name(), (*n).into()))
                    .collect();
                serde_json::json!({"path": f, "bytes": t.len(), "tokens": by})
            })
            .collect();
        let total: serde_json::Map<String, serde_json::Value> = tks
            .iter()
            .zip(&totals)
            .map(|(k, n)| (k.name(), (*n).into()))
            .collect();
        json(serde_json::to_string_pretty(
            &serde_json::json!({"files": rows, "total": total}),
        ))?;
        return Ok(0);
    }
    let mut s = String::new();
    if tks.len() > 1 {
        let head: Vec<String> = tks
            .iter()
            .map(|k| format!("{:>12}", short(&k.name())))
            .collect();
        s.push_str(&format!("{}  file\n", head.join(" ")));
    }
    let row = |c: &[usize]| -> String {
        c.iter()
            .map(|n| format!("{n:>12}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for (f, c) in files.iter().zip(&counts) {
        s.push_str(&format!("{}  {f}\n", row(c)));
    }
    if files.len() > 1 || tks.len() == 1 {
        let label = if tks.len() == 1 {
            format!("total ({})", tks[0].name())
        } else {
            "total".into()
        };
        s.push_str(&format!("{}  {label}\n", row(&totals)));
    }
    out(&s);
    Ok(0)
}

/// A column title: `est:qwen2` for `estimate:qwen2`.
fn short(name: &str) -> String {
    name.replace("estimate:", "est:").replace("_base", "")
}

fn budget(b: &BudgetArgs) -> Result<i32, Failure> {
    let req = request(b)?;
    let p = match plan(&req) {
        Ok(p) => p,
        Err(e) => {
            if b.json {
                json(serde_json::to_string_pretty(&e))?;
            } else {
                out(&format!("does not fit: {e}\n"));
            }
            return Ok(1);
        }
    };
    if b.json {
        json(serde_json::to_string_pretty(&p))?;
    } else {
        out(&render_plan(&p, b.excerpt));
    }
    Ok(0)
}

/// The planner's request from `budget`'s arguments (the files read).
fn request(b: &BudgetArgs) -> Result<Request, Failure> {
    let task = match (b.value("--task"), b.value("--task-file")) {
        (Some(t), _) => t.to_string(),
        (None, Some(f)) => read(f)?,
        (None, None) => String::new(),
    };
    let line_numbers = match b.value("--line-numbers").unwrap_or("sections") {
        "sections" => LineNumbers::Sections,
        "every" => LineNumbers::Every,
        other => {
            return Err(Failure::Usage(format!(
                "--line-numbers takes `sections` or `every`, not {other:?}"
            )))
        }
    };
    let expected = match (b.value("--expect-items"), b.value("--per-item")) {
        (None, None) => None,
        (Some(n), Some(p)) => Some(ExpectedOutput {
            items: number("--expect-items", Some(n), 0)?,
            per_item: number("--per-item", Some(p), 0)?,
        }),
        _ => {
            return Err(Failure::Usage(
                "--expect-items and --per-item go together".into(),
            ))
        }
    };
    let syntax = match b.value("--outline").unwrap_or("syntax") {
        "syntax" => true,
        "heuristic" => false,
        other => {
            return Err(Failure::Usage(format!(
                "--outline takes `syntax` or `heuristic`, not {other:?}"
            )))
        }
    };
    let req = Request {
        window: number("--window", b.value("--window"), 0)?,
        system: b
            .value("--system")
            .map(read)
            .transpose()?
            .unwrap_or_default(),
        reserve: number("--reserve", b.value("--reserve"), 2000)?,
        memory: b.memory.iter().map(|m| read(m)).collect::<Result<_, _>>()?,
        context: b
            .context
            .iter()
            .map(|c| {
                Ok(Named {
                    name: c.clone(),
                    text: read(c)?,
                })
            })
            .collect::<Result<_, Failure>>()?,
        task,
        files: b
            .files
            .iter()
            .map(|f| {
                let text = read(f)?;
                let sections = if syntax { outline(f, &text) } else { None };
                Ok(FileInput {
                    path: f.clone(),
                    text,
                    sections,
                })
            })
            .collect::<Result<_, Failure>>()?,
        options: PlanOptions {
            tokenizer: tokenizer(b.value("--tokenizer").unwrap_or("estimate"))?,
            index_threshold: number("--index-threshold", b.value("--index-threshold"), 150)?,
            line_numbers,
            overhead: number("--overhead", b.value("--overhead"), 0)?,
            expected_output: expected,
        },
    };
    Ok(req)
}

/// The plan as text: each part with its tokens and reason, the sections
/// sent of trimmed files, the warnings, and with `excerpt` what is sent.
fn render_plan(p: &patchbay::budget::Plan, excerpt: bool) -> String {
    let t = &p.totals;
    let mut s = format!("window {} tokens ({})\n", p.window, p.tokenizer.name());
    for part in &p.parts {
        let label = match part.kind.as_str() {
            "context" | "file" => format!("{} {}", part.kind, part.name),
            _ => part.name.clone(),
        };
        let why = if part.reason.is_empty() {
            String::new()
        } else {
            format!(": {}", part.reason)
        };
        s.push_str(&format!(
            "  {label:<32} {:>7}  {}{why}\n",
            part.tokens, part.status
        ));
    }
    s.push_str(&format!(
        "code budget {}, code {}, free {}\n",
        t.code_budget, t.code, t.free
    ));
    for f in &p.files {
        if f.mode == "whole" {
            continue;
        }
        let ranges: Vec<String> = f.ranges.iter().map(|(a, b)| format!("{a}-{b}")).collect();
        s.push_str(&format!(
            "{} ({} lines): lines {} sent, {} of {} sections\n",
            f.path,
            f.lines,
            ranges.join(", "),
            f.index.iter().filter(|x| x.selected).count(),
            f.index.len()
        ));
        // Sections chosen for a reason of their own; neighbours are implied.
        for sec in f
            .index
            .iter()
            .filter(|x| x.selected && !x.reason.starts_with("next to"))
        {
            let x = &sec.section;
            s.push_str(&format!(
                "  lines {}-{} {} {} ({} tokens){}\n",
                x.start_line,
                x.end_line,
                x.kind,
                x.name,
                sec.tokens,
                if sec.reason.is_empty() {
                    String::new()
                } else {
                    format!(": {}", sec.reason)
                }
            ));
        }
    }
    for w in &p.warnings {
        s.push_str(&format!("warning: {w}\n"));
    }
    if excerpt {
        for f in &p.files {
            s.push_str(&format!("\n{}", f.excerpt));
        }
    }
    s
}

/// The tree-sitter outline of a file as budget sections, when its language
/// is known and compiled in (else `None`: the planner's heuristic).
fn outline(path: &str, text: &str) -> Option<Vec<Section>> {
    let lang = patchbay_syntax::Language::from_path(path).filter(|l| l.enabled())?;
    let sections = patchbay_syntax::sections(text, lang).ok()?;
    if sections.is_empty() {
        return None;
    }
    Some(
        sections
            .into_iter()
            .map(|s| Section::new(&s.name, s.kind.name(), s.start_line, s.end_line))
            .collect(),
    )
}
