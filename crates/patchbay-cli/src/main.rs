//! The `patchbay` binary: the only part of patchbay with file-system I/O and
//! exit codes. Each command lives in its own module; this file dispatches
//! and turns errors into exit code 2.

mod apply;
mod arena;
mod args;
mod budget;
mod commit;
mod fsio;
mod help;
mod http;
mod journal;
mod meta;
mod run;
mod small;
mod streaming;
mod syntax;
mod token_args;

use args::{Command, RenderArgs};
use std::process::ExitCode;

/// An error that ends the command with exit code 2.
pub enum Failure {
    /// Bad command line: the message, then a pointer to `--help`.
    Usage(String),
    /// The file system refused, or an input could not be used.
    Io(String),
}

fn main() -> ExitCode {
    // Arguments that are not UTF-8 cannot name model paths or formats; say
    // so instead of mangling them.
    let argv: Result<Vec<String>, _> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect();
    let Ok(argv) = argv else {
        eprintln!("error: arguments must be valid UTF-8");
        return ExitCode::from(2);
    };
    let cmd = match args::parse(argv) {
        Ok(c) => c,
        Err(u) => {
            eprintln!("error: {}\n\n{}", u.message, u.help);
            return ExitCode::from(2);
        }
    };
    let result = match cmd {
        Command::Help(text) => {
            out(text);
            Ok(0)
        }
        Command::Version => {
            out(&format!("patchbay {}\n", env!("CARGO_PKG_VERSION")));
            Ok(0)
        }
        Command::Apply(a) => apply::run(&a),
        Command::Render(r) => render(&r),
        Command::Tag(t) => small::tag(&t),
        Command::Diagnose(d) => small::diagnose(&d),
        Command::CheckOutput(c) => small::check_output(&c),
        Command::Tokens(c) => budget::run(&c),
        Command::Syntax(s) => syntax::run(&s),
        Command::Run(r) => run::run(&r),
        Command::Arena(a) => arena::run(&a),
    };
    match result {
        Ok(code) => ExitCode::from(code as u8),
        Err(Failure::Usage(m)) => {
            eprintln!("error: {m}\n(see `patchbay --help`)");
            ExitCode::from(2)
        }
        Err(Failure::Io(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(2)
        }
    }
}

/// `patchbay render`: the canonical edit from BEFORE to AFTER, naming the
/// file by BEFORE as given.
fn render(r: &RenderArgs) -> Result<i32, Failure> {
    if patchbay::formats::by_name(&r.format).is_none() {
        let names: Vec<&str> = patchbay::formats::all().iter().map(|f| f.name()).collect();
        return Err(Failure::Usage(format!(
            "unknown format {:?} for render; expected one of: {}",
            r.format,
            names.join(", ")
        )));
    }
    let read = |p: &str| {
        std::fs::read_to_string(p).map_err(|e| Failure::Io(format!("cannot read {p}: {e}")))
    };
    let (before, after) = (read(&r.before)?, read(&r.after)?);
    let text = patchbay::render(&r.format, &r.before, &before, &after)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    out(&text);
    Ok(0)
}

/// Writes to stdout; a closed pipe is not worth a panic.
pub fn out(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}
