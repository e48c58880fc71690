//! Command-line parsing, by hand: the surface is a handful of flags, so a
//! table per subcommand is clearer than a dependency. Accepts `--flag value`
//! and `--flag=value`; `--` ends the flags. Anything unknown, repeated or
//! missing is a usage error (exit 2), never silently ignored. `O(args)`.

use crate::help::*;
use std::path::PathBuf;

/// A parsed command line.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// Print this text on stdout and exit 0.
    Help(&'static str),
    Version,
    Apply(ApplyArgs),
    Render(RenderArgs),
    Tag(TagArgs),
    Diagnose(DiagnoseArgs),
    CheckOutput(CheckArgs),
    /// `tokens`, `compare`, `budget` (parsed in `token_args.rs`).
    Tokens(crate::budget::TokenCmd),
    Syntax(SyntaxArgs),
    Run(crate::run::RunOptions),
    Arena(crate::arena::ArenaOptions),
}

/// `outline`, `slice` and `splice`.
#[derive(Debug, PartialEq, Eq)]
pub struct SyntaxArgs {
    /// `outline`, `slice` or `splice`.
    pub command: &'static str,
    pub file: String,
    pub symbol: Option<String>,
    pub slice: Option<String>,
    pub json: bool,
    pub dry_run: bool,
    pub language: Option<String>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct DiagnoseArgs {
    pub output: String,
    pub root: PathBuf,
    pub json: bool,
    pub repair: bool,
    pub fuzz: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub struct TagArgs {
    pub file: String,
    pub len: usize,
    pub with_line: bool,
    /// The `lines` format's view instead: the file-CRC header and numbered lines.
    pub crc: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub struct CheckArgs {
    pub output: String,
    pub stop_reason: Option<String>,
    pub json: bool,
    pub continuation: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub struct ApplyArgs {
    /// Path of the model output, or `-` for stdin.
    pub edits: String,
    pub root: PathBuf,
    pub file: Option<String>,
    pub format: String,
    pub dry_run: bool,
    pub json: bool,
    pub partial: bool,
    pub strict: bool,
    pub tag_len: usize,
    pub tag_line: bool,
    pub stream: bool,
    pub fail_fast: bool,
    pub check_syntax: bool,
    pub fail_on_syntax: bool,
    /// The model's stop reason, when the caller knows it.
    pub stop_reason: Option<patchbay::StopReason>,
    pub overwrite: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub struct RenderArgs {
    pub format: String,
    pub before: String,
    pub after: String,
}

/// A usage error: the message and the help of the command it concerns.
#[derive(Debug, PartialEq, Eq)]
pub struct Usage {
    pub message: String,
    pub help: &'static str,
}

/// Flags and positionals of one subcommand after splitting.
pub(crate) struct Split {
    values: Vec<(&'static str, String)>,
    switches: Vec<&'static str>,
    pub(crate) positionals: Vec<String>,
}

impl Split {
    pub(crate) fn value(&self, name: &str) -> Option<String> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    }
    pub(crate) fn switch(&self, name: &str) -> bool {
        self.switches.contains(&name)
    }
}

/// Parses the arguments after the program name.
pub fn parse(args: Vec<String>) -> Result<Command, Usage> {
    let usage = |message: String| Usage {
        message,
        help: MAIN_HELP,
    };
    let Some((cmd, rest)) = args.split_first() else {
        return Err(usage("no command given".into()));
    };
    match cmd.as_str() {
        "-h" | "--help" => Ok(Command::Help(MAIN_HELP)),
        "-V" | "--version" => Ok(Command::Version),
        "help" => match rest.first().map(String::as_str) {
            None | Some("-h" | "--help" | "help") => Ok(Command::Help(MAIN_HELP)),
            Some("apply") => Ok(Command::Help(APPLY_HELP)),
            Some("render") => Ok(Command::Help(RENDER_HELP)),
            Some("tag") => Ok(Command::Help(TAG_HELP)),
            Some("diagnose") => Ok(Command::Help(DIAGNOSE_HELP)),
            Some("check-output") => Ok(Command::Help(CHECK_HELP)),
            Some(c @ ("tokens" | "compare" | "budget")) => {
                Ok(Command::Help(crate::budget::help(c)))
            }
            Some("run") => Ok(Command::Help(crate::run::RUN_HELP)),
            Some("arena") => Ok(Command::Help(crate::arena::ARENA_HELP)),
            Some("outline") => Ok(Command::Help(OUTLINE_HELP)),
            Some("slice") => Ok(Command::Help(SLICE_HELP)),
            Some("splice") => Ok(Command::Help(SPLICE_HELP)),
            Some(other) => Err(usage(format!("no help for unknown command `{other}`"))),
        },
        "apply" => apply(rest),
        "run" => run(rest),
        "arena" => arena(rest),
        "render" => render(rest),
        "tag" => tag(rest),
        "diagnose" => diagnose(rest),
        "check-output" => check_output(rest),
        "tokens" | "compare" | "budget" => crate::budget::parse(cmd, rest),
        "outline" => syntax("outline", OUTLINE_HELP, 1, rest),
        "slice" => syntax("slice", SLICE_HELP, 2, rest),
        "splice" => syntax("splice", SPLICE_HELP, 3, rest),
        other if other.starts_with('-') => Err(usage(format!(
            "unknown option `{other}`; the command comes first"
        ))),
        other => Err(usage(format!("unknown command `{other}`"))),
    }
}

fn apply(args: &[String]) -> Result<Command, Usage> {
    let err = |message: String| Usage {
        message,
        help: APPLY_HELP,
    };
    let s = split(
        "apply",
        args,
        &[
            "--edits",
            "--root",
            "--file",
            "--format",
            "--tag-len",
            "--stop-reason",
        ],
        &[
            "--dry-run",
            "--json",
            "--partial",
            "--strict",
            "--tag-line",
            "--stream",
            "--fail-fast",
            "--check-syntax",
            "--fail-on-syntax",
            "--overwrite",
        ],
    )
    .map_err(err)?;
    if s.switch("--help") {
        return Ok(Command::Help(APPLY_HELP));
    }
    if let Some(p) = s.positionals.first() {
        return Err(err(format!(
            "unexpected argument `{p}` (the output is passed with --edits)"
        )));
    }
    let edits = s
        .value("--edits")
        .ok_or_else(|| err("--edits OUT.txt is required".into()))?;
    if s.switch("--fail-fast") && !s.switch("--stream") {
        return Err(err("--fail-fast goes with --stream".into()));
    }
    Ok(Command::Apply(ApplyArgs {
        edits,
        root: PathBuf::from(s.value("--root").unwrap_or_else(|| ".".into())),
        file: s.value("--file"),
        format: s.value("--format").unwrap_or_else(|| "auto".into()),
        dry_run: s.switch("--dry-run"),
        json: s.switch("--json"),
        partial: s.switch("--partial"),
        strict: s.switch("--strict"),
        tag_len: tag_len(&s).map_err(err)?,
        tag_line: s.switch("--tag-line"),
        stream: s.switch("--stream"),
        fail_fast: s.switch("--fail-fast"),
        check_syntax: s.switch("--check-syntax") || s.switch("--fail-on-syntax"),
        fail_on_syntax: s.switch("--fail-on-syntax"),
        stop_reason: s
            .value("--stop-reason")
            .map(|v| v.parse())
            .transpose()
            .map_err(err)?,
        overwrite: s.switch("--overwrite"),
    }))
}

/// `run --model NAME --format FMT --task TEXT FILE...`.
fn run(args: &[String]) -> Result<Command, Usage> {
    let help = crate::run::RUN_HELP;
    let err = |message: String| Usage { message, help };
    let values = [
        "--model",
        "--url",
        "--provider",
        "--format",
        "--task",
        "--rounds",
        "--num-ctx",
        "--reply-limit",
        "--seed",
        "--root",
    ];
    let switches = ["--think", "--no-early-stop", "--dry-run", "--json"];
    let s = split("run", args, &values, &switches).map_err(err)?;
    if s.switch("--help") {
        return Ok(Command::Help(help));
    }
    let need = |f: &str| s.value(f).ok_or_else(|| err(format!("{f} is required")));
    let num = |f: &str| {
        s.value(f)
            .map(|v| {
                v.parse::<usize>()
                    .map_err(|e| err(format!("{f} {v:?}: {e}")))
            })
            .transpose()
    };
    let provider = s
        .value("--provider")
        .map_or(Ok(Default::default()), |p| p.parse())
        .map_err(err)?;
    Ok(Command::Run(crate::run::RunOptions {
        model: need("--model")?,
        url: s.value("--url"),
        provider,
        format: need("--format")?,
        task: need("--task")?,
        rounds: num("--rounds")?.unwrap_or(3),
        num_ctx: num("--num-ctx")?,
        reply_limit: num("--reply-limit")?.unwrap_or(2048),
        seed: num("--seed")?.map(|n| n as u64),
        think: s.switch("--think"),
        early_stop: !s.switch("--no-early-stop"),
        root: PathBuf::from(s.value("--root").unwrap_or_else(|| ".".into())),
        dry_run: s.switch("--dry-run"),
        json: s.switch("--json"),
        files: s.positionals.clone(),
    }))
}

/// `arena --tasks DIR --models A,B --formats X,Y ...`.
fn arena(args: &[String]) -> Result<Command, Usage> {
    let help = crate::arena::ARENA_HELP;
    let err = |message: String| Usage { message, help };
    let values = [
        "--tasks",
        "--models",
        "--formats",
        "--trials",
        "--out",
        "--summary",
        "--url",
        "--provider",
        "--rounds",
        "--num-ctx",
        "--reply-limit",
        "--seed",
    ];
    let s = split("arena", args, &values, &["--think", "--no-early-stop"]).map_err(err)?;
    if s.switch("--help") {
        return Ok(Command::Help(help));
    }
    if let Some(p) = s.positionals.first() {
        return Err(err(format!("unexpected argument `{p}`")));
    }
    let list = |v: String| {
        v.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let num = |f: &str| {
        s.value(f)
            .map(|v| {
                v.parse::<usize>()
                    .map_err(|e| err(format!("{f} {v:?}: {e}")))
            })
            .transpose()
    };
    let formats = s.value("--formats").map(list).unwrap_or_else(|| {
        patchbay::formats::all()
            .iter()
            .map(|f| f.name().to_string())
            .collect()
    });
    let provider = s
        .value("--provider")
        .map_or(Ok(Default::default()), |p| p.parse())
        .map_err(err)?;
    Ok(Command::Arena(crate::arena::ArenaOptions {
        tasks: PathBuf::from(
            s.value("--tasks")
                .ok_or_else(|| err("--tasks DIR is required".into()))?,
        ),
        models: s
            .value("--models")
            .map(list)
            .filter(|m| !m.is_empty())
            .ok_or_else(|| err("--models A,B is required".into()))?,
        formats,
        trials: num("--trials")?.unwrap_or(1).max(1),
        out: PathBuf::from(
            s.value("--out")
                .unwrap_or_else(|| "arena-results.json".into()),
        ),
        summary: s.value("--summary").map(PathBuf::from),
        url: s.value("--url"),
        provider,
        rounds: num("--rounds")?.unwrap_or(3),
        num_ctx: num("--num-ctx")?,
        reply_limit: num("--reply-limit")?.unwrap_or(2048),
        seed: num("--seed")?.unwrap_or(1) as u64,
        think: s.switch("--think"),
        early_stop: !s.switch("--no-early-stop"),
    }))
}

/// `outline FILE`, `slice FILE SYMBOL`, `splice FILE SYMBOL SLICE`: `n`
/// positionals.
fn syntax(
    command: &'static str,
    help: &'static str,
    n: usize,
    args: &[String],
) -> Result<Command, Usage> {
    let err = |message: String| Usage { message, help };
    let switches: &[&'static str] = match command {
        "splice" => &["--dry-run"],
        _ => &["--json"],
    };
    let s = split(command, args, &["--language"], switches).map_err(err)?;
    if s.switch("--help") {
        return Ok(Command::Help(help));
    }
    if s.positionals.len() != n {
        let names = ["FILE", "SYMBOL", "SLICE"][..n].join(" ");
        return Err(err(format!(
            "expected {names}, got {} argument(s)",
            s.positionals.len()
        )));
    }
    let mut p = s.positionals.clone().into_iter();
    Ok(Command::Syntax(SyntaxArgs {
        command,
        file: p.next().unwrap_or_default(),
        symbol: p.next(),
        slice: p.next(),
        json: s.switch("--json"),
        dry_run: s.switch("--dry-run"),
        language: s.value("--language"),
    }))
}

fn tag_len(s: &Split) -> Result<usize, String> {
    match s.value("--tag-len") {
        None => Ok(4),
        Some(v) => match v.parse::<usize>() {
            Ok(n) if (2..=8).contains(&n) => Ok(n),
            _ => Err(format!("--tag-len takes a number from 2 to 8, not {v:?}")),
        },
    }
}

fn diagnose(args: &[String]) -> Result<Command, Usage> {
    let err = |message: String| Usage {
        message,
        help: DIAGNOSE_HELP,
    };
    let s = split(
        "diagnose",
        args,
        &["--root"],
        &["--json", "--repair", "--fuzz"],
    )
    .map_err(err)?;
    if s.switch("--help") {
        return Ok(Command::Help(DIAGNOSE_HELP));
    }
    if s.switch("--repair") && s.switch("--fuzz") {
        return Err(err("--repair and --fuzz do not go together".into()));
    }
    match <[String; 1]>::try_from(s.positionals.clone()) {
        Ok([output]) => Ok(Command::Diagnose(DiagnoseArgs {
            output,
            root: PathBuf::from(s.value("--root").unwrap_or_else(|| ".".into())),
            json: s.switch("--json"),
            repair: s.switch("--repair"),
            fuzz: s.switch("--fuzz"),
        })),
        Err(p) => Err(err(format!("expected one OUT.txt, got {}", p.len()))),
    }
}

fn tag(args: &[String]) -> Result<Command, Usage> {
    let err = |message: String| Usage {
        message,
        help: TAG_HELP,
    };
    let s = split("tag", args, &["--tag-len"], &["--tag-line", "--crc"]).map_err(err)?;
    if s.switch("--help") {
        return Ok(Command::Help(TAG_HELP));
    }
    match <[String; 1]>::try_from(s.positionals.clone()) {
        Ok([file]) => Ok(Command::Tag(TagArgs {
            file,
            len: tag_len(&s).map_err(err)?,
            with_line: s.switch("--tag-line"),
            crc: s.switch("--crc"),
        })),
        Err(p) => Err(err(format!("expected one FILE, got {}", p.len()))),
    }
}

fn check_output(args: &[String]) -> Result<Command, Usage> {
    let err = |message: String| Usage {
        message,
        help: CHECK_HELP,
    };
    let s = split(
        "check-output",
        args,
        &["--stop-reason"],
        &["--json", "--continuation"],
    )
    .map_err(err)?;
    if s.switch("--help") {
        return Ok(Command::Help(CHECK_HELP));
    }
    match <[String; 1]>::try_from(s.positionals.clone()) {
        Ok([output]) => Ok(Command::CheckOutput(CheckArgs {
            output,
            stop_reason: s.value("--stop-reason"),
            json: s.switch("--json"),
            continuation: s.switch("--continuation"),
        })),
        Err(p) => Err(err(format!("expected one OUT.txt, got {}", p.len()))),
    }
}

fn render(args: &[String]) -> Result<Command, Usage> {
    let err = |message: String| Usage {
        message,
        help: RENDER_HELP,
    };
    let s = split("render", args, &["--format"], &[]).map_err(err)?;
    if s.switch("--help") {
        return Ok(Command::Help(RENDER_HELP));
    }
    let format = s
        .value("--format")
        .ok_or_else(|| err("--format NAME is required".into()))?;
    match <[String; 2]>::try_from(s.positionals) {
        Ok([before, after]) => Ok(Command::Render(RenderArgs {
            format,
            before,
            after,
        })),
        Err(p) => Err(err(format!(
            "expected two files, BEFORE and AFTER; got {}",
            p.len()
        ))),
    }
}

/// Splits `args` by the flag tables of one subcommand; `-h`/`--help` is
/// known everywhere. A lone `-` is a positional (stdin by convention).
pub(crate) fn split(
    cmd: &str,
    args: &[String],
    value_flags: &[&'static str],
    switch_flags: &[&'static str],
) -> Result<Split, String> {
    let mut s = Split {
        values: vec![],
        switches: vec![],
        positionals: vec![],
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            s.positionals.extend(it.by_ref().cloned());
            break;
        }
        if !a.starts_with('-') || a == "-" {
            s.positionals.push(a.clone());
            continue;
        }
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ => (a.as_str(), None),
        };
        if name == "-h" || name == "--help" {
            s.switches.push("--help");
        } else if let Some(&flag) = value_flags.iter().find(|f| **f == name) {
            let v = match inline {
                Some(v) => v,
                None => it
                    .next()
                    .cloned()
                    .ok_or_else(|| format!("{flag} needs a value"))?,
            };
            if s.values.iter().any(|(n, _)| *n == flag) {
                return Err(format!("{flag} is given more than once"));
            }
            s.values.push((flag, v));
        } else if let Some(&flag) = switch_flags.iter().find(|f| **f == name) {
            if inline.is_some() {
                return Err(format!("{flag} takes no value"));
            }
            if s.switches.contains(&flag) {
                return Err(format!("{flag} is given more than once"));
            }
            s.switches.push(flag);
        } else {
            return Err(format!("unknown option `{name}` for `patchbay {cmd}`"));
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Command, Usage> {
        parse(args.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn apply_flags_both_spellings() {
        let Ok(Command::Apply(a)) = p(&[
            "apply",
            "--edits=-",
            "--root",
            "r",
            "--json",
            "--format",
            "whole",
        ]) else {
            panic!("not an apply command")
        };
        assert_eq!(a.edits, "-");
        assert_eq!(a.root, PathBuf::from("r"));
        assert_eq!(a.format, "whole");
        assert!(a.json && !a.dry_run && !a.partial);
        assert_eq!(a.file, None);
    }

    #[test]
    fn usage_errors() {
        for bad in [
            &["apply"][..],
            &["apply", "--edits", "o", "--bogus"],
            &["apply", "--edits", "o", "--edits", "p"],
            &["apply", "--edits"],
            &["apply", "--edits", "o", "extra"],
            &["apply", "--edits", "o", "--json=yes"],
            &["render", "--format", "whole", "a"],
            &["frobnicate"],
            &[],
        ] {
            assert!(p(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn syntax_commands() {
        assert_eq!(
            p(&["slice", "a.rs", "A::f", "--json"]),
            Ok(Command::Syntax(SyntaxArgs {
                command: "slice",
                file: "a.rs".into(),
                symbol: Some("A::f".into()),
                slice: None,
                json: true,
                dry_run: false,
                language: None,
            }))
        );
        let Ok(Command::Syntax(a)) = p(&["splice", "a", "f", "-", "--language=rust"]) else {
            panic!("not a splice command")
        };
        assert_eq!(
            (a.slice.as_deref(), a.language.as_deref()),
            (Some("-"), Some("rust"))
        );
        assert!(p(&["outline"]).is_err());
        assert!(p(&["slice", "a.rs"]).is_err());
        assert!(p(&["splice", "a", "f", "s", "--json"]).is_err());
        assert_eq!(p(&["help", "splice"]), Ok(Command::Help(SPLICE_HELP)));
    }

    #[test]
    fn help_and_render() {
        assert_eq!(p(&["apply", "--help"]), Ok(Command::Help(APPLY_HELP)));
        assert_eq!(p(&["help", "render"]), Ok(Command::Help(RENDER_HELP)));
        assert_eq!(p(&["--version"]), Ok(Command::Version));
        assert_eq!(
            p(&["render", "--format", "whole", "--", "-a", "b"]),
            Ok(Command::Render(RenderArgs {
                format: "whole".into(),
                before: "-a".into(),
                after: "b".into()
            }))
        );
    }
}
