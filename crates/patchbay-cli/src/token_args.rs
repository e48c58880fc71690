//! Arguments and help of the token commands (`tokens`, `compare`,
//! `budget`), parsed with the shared splitter of `args.rs`; `budget.rs` runs
//! them. `O(args)`.

use crate::args::{split, Command, Usage};

pub const TOKENS_HELP: &str = "\
Count the tokens of files.

Usage: patchbay tokens FILE... [--tokenizer NAME] [--json]

FILE `-` reads stdin. The default tokenizer is the built-in estimator for
o200k_base (GPT-4o): no vocabulary, within a few percent on code.

Options:
  --tokenizer NAME  estimate, estimate:FAMILY (o200k_base, cl100k_base, llama3,
                    qwen2, deepseek_v3, gemma), an exact vocabulary (o200k_base,
                    cl100k_base, llama3, qwen2, deepseek_v3), or `all`
                    [default: estimate]
  --json            print JSON
  -h, --help        print help
";

pub const COMPARE_HELP: &str = "\
Show every format's edit from BEFORE to AFTER with its size, and which
format to ask the model for.

Usage: patchbay compare BEFORE AFTER [--tokenizer NAME] [--whole-below N]
                        [--whole-above PCT] [--json]

Whole-file rewrites are advised for files under N lines or when more than
PCT percent of the lines change; otherwise the cheapest format whose edit
applies back unambiguously.

Options:
  --tokenizer NAME   how to count (see `patchbay help tokens`) [default: estimate]
  --whole-below N    line count under which files are rewritten whole [default: 300]
  --whole-above PCT  changed share above which files are rewritten whole [default: 30]
  --json             print JSON (with every edit's text)
  -h, --help         print help
";

pub const BUDGET_HELP: &str = "\
Plan what fits in a model's context window: keep the system prompt, the
task and the reply reserve; then the code the task needs; then memory
(newest first) and folder context; then more code until the window is full.
Files over the line-index threshold are sent as the sections the task names
or uses, with their original line numbers.

Usage: patchbay budget --window N [--system FILE] [--reserve N] [--task TEXT]
                       [--memory FILE]... [--context FILE]... [OPTIONS] FILE...

Options:
  --window N             the context window in tokens (required)
  --system FILE          the system prompt
  --reserve N            tokens reserved for the reply [default: 2000]
  --task TEXT            the task (its identifiers and line numbers pick the
                         sections); --task-file FILE reads it from a file
  --memory FILE          a memory entry; repeat, oldest first
  --context FILE         folder or project context; repeat, most useful first
  --tokenizer NAME       how to count (see `patchbay help tokens`) [default: estimate]
  --index-threshold N    files over N lines are sent as sections [default: 150]
  --line-numbers MODE    `sections` ([lines A-B] markers) or `every` (N| prefixes)
                         [default: sections]
  --outline SOURCE       where sections come from: `syntax` (tree-sitter, for the
                         languages `patchbay outline` knows; others fall back) or
                         `heuristic` (indentation and brackets) [default: syntax]
  --overhead N           tokens the chat template adds [default: 0]
  --expect-items N       the reply will hold N items ...
  --per-item N           ... of about N tokens each: warn when they would pass
                         half the reply reserve
  --excerpt              also print the text to send for each file
  --json                 print the plan as JSON (excerpts included)
  -h, --help             print help

Exit codes: 0 a plan fits, 1 even the minimum (system + task + reserve + the
target sections) does not fit, 2 usage or I/O error.
";

/// The parsed token commands.
#[derive(Debug, PartialEq, Eq)]
pub enum TokenCmd {
    Tokens {
        files: Vec<String>,
        tokenizer: String,
        json: bool,
    },
    Compare {
        before: String,
        after: String,
        tokenizer: String,
        whole_below: Option<String>,
        whole_above: Option<String>,
        json: bool,
    },
    Budget(BudgetArgs),
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct BudgetArgs {
    pub values: Vec<(&'static str, String)>,
    pub memory: Vec<String>,
    pub context: Vec<String>,
    pub files: Vec<String>,
    pub excerpt: bool,
    pub json: bool,
}

impl BudgetArgs {
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The help text of a token command.
pub fn help(cmd: &str) -> &'static str {
    match cmd {
        "tokens" => TOKENS_HELP,
        "compare" => COMPARE_HELP,
        _ => BUDGET_HELP,
    }
}

/// Parses the arguments of `tokens`, `compare` or `budget`.
pub fn parse(cmd: &str, args: &[String]) -> Result<Command, Usage> {
    let help = help(cmd);
    let err = |message: String| Usage { message, help };
    match cmd {
        "tokens" => {
            let s = split(cmd, args, &["--tokenizer"], &["--json"]).map_err(err)?;
            if s.switch("--help") {
                return Ok(Command::Help(help));
            }
            if s.positionals.is_empty() {
                return Err(err("expected one or more FILEs".into()));
            }
            Ok(Command::Tokens(TokenCmd::Tokens {
                files: s.positionals.clone(),
                tokenizer: s.value("--tokenizer").unwrap_or_else(|| "estimate".into()),
                json: s.switch("--json"),
            }))
        }
        "compare" => {
            let s = split(
                cmd,
                args,
                &["--tokenizer", "--whole-below", "--whole-above"],
                &["--json"],
            )
            .map_err(err)?;
            if s.switch("--help") {
                return Ok(Command::Help(help));
            }
            match <[String; 2]>::try_from(s.positionals.clone()) {
                Ok([before, after]) => Ok(Command::Tokens(TokenCmd::Compare {
                    before,
                    after,
                    tokenizer: s.value("--tokenizer").unwrap_or_else(|| "estimate".into()),
                    whole_below: s.value("--whole-below"),
                    whole_above: s.value("--whole-above"),
                    json: s.switch("--json"),
                })),
                Err(p) => Err(err(format!(
                    "expected two files, BEFORE and AFTER; got {}",
                    p.len()
                ))),
            }
        }
        _ => budget_args(args).map_err(err),
    }
}

const BUDGET_VALUES: [&str; 12] = [
    "--window",
    "--system",
    "--reserve",
    "--task",
    "--task-file",
    "--tokenizer",
    "--index-threshold",
    "--line-numbers",
    "--overhead",
    "--expect-items",
    "--per-item",
    "--outline",
];

fn budget_args(args: &[String]) -> Result<Command, String> {
    // --memory and --context repeat; take them out before the splitter,
    // which refuses repeated flags.
    let mut b = BudgetArgs::default();
    let mut rest = vec![];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            rest.push(a.clone());
            rest.extend(it.by_ref().cloned());
            break;
        }
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        if name == "--memory" || name == "--context" {
            let v = match inline {
                Some(v) => v,
                None => it.next().cloned().ok_or(format!("{name} needs a value"))?,
            };
            if name == "--memory" {
                b.memory.push(v);
            } else {
                b.context.push(v);
            }
        } else {
            rest.push(a.clone());
        }
    }
    let s = split("budget", &rest, &BUDGET_VALUES, &["--json", "--excerpt"])?;
    if s.switch("--help") {
        return Ok(Command::Help(BUDGET_HELP));
    }
    if s.value("--window").is_none() {
        return Err("--window N is required".into());
    }
    if s.value("--task").is_some() && s.value("--task-file").is_some() {
        return Err("give the task once: --task TEXT or --task-file FILE".into());
    }
    b.values = BUDGET_VALUES
        .iter()
        .filter_map(|&n| s.value(n).map(|v| (n, v)))
        .collect();
    b.files = s.positionals.clone();
    b.excerpt = s.switch("--excerpt");
    b.json = s.switch("--json");
    Ok(Command::Tokens(TokenCmd::Budget(b)))
}
