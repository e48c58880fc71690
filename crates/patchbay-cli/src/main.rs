//! The `patchbay` binary: the only part of patchbay with file-system I/O and
//! exit codes. The command line is declared in `args.rs` (clap); each
//! command lives in its own module; this file dispatches and turns errors
//! into exit code 2 (docs/contracts.md lists every exit code).

#[cfg(target_os = "linux")]
mod alloc;
mod apply;
mod arena;
mod args;
mod budget;
mod commit;
mod fsio;
mod http;
mod journal;
mod mcp;
mod meta;
mod read_only;
mod run;
mod streaming;
mod syntax;
mod term;

use args::{Cli, Command, CompletionsArgs, RenderArgs};
use clap::{CommandFactory, Parser};
use std::process::ExitCode;

/// Large blocks prefaulted (see `alloc.rs`): fewer page faults for `apply`.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOC: alloc::Populated = alloc::Populated;

/// An error that ends the command with exit code 2.
pub enum Failure {
    /// Bad command line: the message, then a pointer to `--help`.
    Usage(String),
    /// The file system refused, or an input could not be used.
    Io(String),
}

/// The exit code of a usage error (clap's own code for one, set here so
/// that it is written down once).
const USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // `--help` and `--version` are "errors" printed on stdout: exit 0.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { USAGE } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Apply(a) => apply::run(&a),
        Command::Render(r) => render(&r),
        Command::Tag(t) => read_only::tag(&t),
        Command::Diagnose(d) => read_only::diagnose(&d),
        Command::CheckOutput(c) => read_only::check_output(&c),
        Command::Outline(o) => syntax::run(&o.into()),
        Command::Slice(s) => syntax::run(&s.into()),
        Command::Splice(s) => syntax::run(&s.into()),
        Command::Tokens(t) => budget::tokens(&t),
        Command::Compare(c) => budget::compare(&c),
        Command::Budget(b) => budget::budget(&b),
        Command::Run(r) => run::run(&r),
        Command::Arena(a) => arena::run(&a),
        Command::Mcp(m) => mcp::run(&m),
        Command::Completions(c) => completions(&c),
        Command::Help(h) => help(h.command.as_deref()),
    };
    match result {
        Ok(code) => ExitCode::from(code as u8),
        Err(Failure::Usage(m)) => {
            eprintln!("error: {}\n(see `patchbay --help`)", term::shown(&m));
            ExitCode::from(USAGE)
        }
        Err(Failure::Io(m)) => {
            eprintln!("error: {}", term::shown(&m));
            ExitCode::from(2)
        }
    }
}

/// `patchbay render`: the canonical edit from BEFORE to AFTER, naming the
/// file by BEFORE as given.
fn render(r: &RenderArgs) -> Result<i32, Failure> {
    let read = |p: &str| {
        std::fs::read_to_string(p).map_err(|e| Failure::Io(format!("cannot read {p}: {e}")))
    };
    let (before, after) = (read(&r.before)?, read(&r.after)?);
    let text = patchbay::render(r.format, &r.before, &before, &after)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    out(&text);
    Ok(0)
}

/// `patchbay completions SHELL`: the completion script, from the same
/// declarations that parse the command line.
fn completions(c: &CompletionsArgs) -> Result<i32, Failure> {
    let mut buf = Vec::new();
    clap_complete::generate(c.shell, &mut Cli::command(), "patchbay", &mut buf);
    out(&String::from_utf8_lossy(&buf));
    Ok(0)
}

/// `patchbay help [COMMAND]`: exactly what `patchbay [COMMAND] --help`
/// prints (clap renders it), and its exit code.
fn help(command: Option<&str>) -> Result<i32, Failure> {
    let argv = ["patchbay"].into_iter().chain(command).chain(["--help"]);
    match Cli::command().try_get_matches_from(argv) {
        Err(e) => {
            let _ = e.print();
            Ok(if e.use_stderr() { USAGE.into() } else { 0 })
        }
        Ok(_) => Ok(0),
    }
}

/// Writes to stdout; a closed pipe is not worth a panic. On a terminal,
/// control characters (which may come from a reply or a file) are shown,
/// not obeyed; into a pipe or a file the bytes go as they are, so a
/// repaired diff or a tagged view stays exact.
pub fn out(text: &str) {
    use std::io::{IsTerminal, Write};
    let mut stdout = std::io::stdout().lock();
    let text = match stdout.is_terminal() {
        true => term::shown(text),
        false => std::borrow::Cow::Borrowed(text),
    };
    let _ = stdout.write_all(text.as_bytes());
}
