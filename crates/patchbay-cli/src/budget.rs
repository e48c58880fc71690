//! The token commands: `tokens` (count files), `compare` (every format's
//! edit for a change, and which to use) and `budget` (what fits in a
//! context window). Each reads its files, calls one core function and
//! prints text or JSON; none writes anything. Their arguments are declared
//! in `args.rs`.

use crate::args::{BudgetArgs, CompareArgs, LineNumbersArg, OutlineSource, TokensArgs};
use crate::read_only::read;
use crate::{out, Failure};
use patchbay::budget::advisor::{CompareOptions, Comparison};
use patchbay::budget::tokens::Tokenizer;
use patchbay::budget::{
    plan, ExpectedOutput, FileInput, LineNumbers, Named, PlanOptions, Request, Section,
};

/// A tokenizer by name (`args.rs` checked the name already; the message is
/// for a caller that did not).
fn tokenizer(name: &str) -> Result<Tokenizer, Failure> {
    Tokenizer::parse(name).map_err(|e| Failure::Usage(e.to_string()))
}

/// Prints pretty JSON (`serde_json::to_string_pretty`'s result).
fn json(s: serde_json::Result<String>) -> Result<(), Failure> {
    let s = s.map_err(|e| Failure::Io(e.to_string()))?;
    out(&format!("{s}\n"));
    Ok(())
}

/// `patchbay compare BEFORE AFTER`.
pub fn compare(a: &CompareArgs) -> Result<i32, Failure> {
    let opt = CompareOptions {
        path: a.before.clone(),
        tokenizer: tokenizer(&a.tokenizer)?,
        whole_below_lines: a.whole_below,
        whole_above_change: a.whole_above / 100.0,
    };
    let c = patchbay::budget::advisor::compare(&read(&a.before)?, &read(&a.after)?, &opt);
    if a.json {
        json(serde_json::to_string_pretty(&c))?;
    } else {
        out(&comparison_table(&c));
    }
    Ok(0)
}

/// `compare`'s text: the sizes of every format's edit and the advice.
fn comparison_table(c: &Comparison) -> String {
    if c.formats.is_empty() {
        return format!(
            "BEFORE and AFTER are identical ({}): there is nothing to edit.\n",
            plural(c.lines_before, "line")
        );
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
    s
}

/// `1 line`, `2 lines`.
fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `patchbay tokens FILE...`.
pub fn tokens(a: &TokensArgs) -> Result<i32, Failure> {
    let (files, name, as_json) = (&a.files, a.tokenizer.as_str(), a.json);
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

/// `patchbay budget --window N ... FILE...`.
pub fn budget(b: &BudgetArgs) -> Result<i32, Failure> {
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
    let task = match (&b.task, &b.task_file) {
        (Some(t), _) => t.clone(),
        (None, Some(f)) => read(f)?,
        (None, None) => String::new(),
    };
    let syntax = b.outline == OutlineSource::Syntax;
    let context = b.context.iter().map(|c| {
        Ok(Named {
            name: c.clone(),
            text: read(c)?,
        })
    });
    let files = b.files.iter().map(|f| {
        let text = read(f)?;
        let sections = if syntax { outline(f, &text) } else { None };
        Ok(FileInput {
            path: f.clone(),
            text,
            sections,
        })
    });
    Ok(Request {
        window: b.window,
        system: b
            .system
            .as_deref()
            .map(read)
            .transpose()?
            .unwrap_or_default(),
        reserve: b.reserve,
        memory: b.memory.iter().map(|m| read(m)).collect::<Result<_, _>>()?,
        context: context.collect::<Result<_, Failure>>()?,
        task,
        files: files.collect::<Result<_, Failure>>()?,
        options: PlanOptions {
            tokenizer: tokenizer(&b.tokenizer)?,
            index_threshold: b.index_threshold,
            line_numbers: match b.line_numbers {
                LineNumbersArg::Sections => LineNumbers::Sections,
                LineNumbersArg::Every => LineNumbers::Every,
            },
            overhead: b.overhead,
            // clap makes the two flags go together.
            expected_output: b
                .expect_items
                .zip(b.per_item)
                .map(|(items, per_item)| ExpectedOutput { items, per_item }),
        },
    })
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
        if f.mode == patchbay::budget::FileMode::Whole {
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
pub(crate) fn outline(path: &str, text: &str) -> Option<Vec<Section>> {
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
