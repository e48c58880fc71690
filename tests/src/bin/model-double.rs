//! The model-server double on its own, for the page's browser tests and
//! for trying the CLI by hand:
//!
//! ```text
//! cargo run -p patchbay-tests --bin model-double -- --port 11434 --script replies.json
//! ```
//!
//! Prints `listening on http://127.0.0.1:PORT` once it accepts connections
//! (`--port 0` picks a free port), then serves until killed. The script is
//! a JSON [`Script`]; without one it knows one model and no replies.
//! `--arena TASKS --scenarios FILE` serves the scripted models of the arena
//! instead (`tests/arena/tasks`, `tests/arena/scenarios.json`), for every
//! format, with `--rounds N` (default 3) refusals for a failing scenario.
//! `--expected a,b` with them prints, instead of serving, what the arena
//! must score for every run in formats a and b (`arena::expected_runs`, the
//! derivation the CLI's arena test uses too) as JSON, for the page's test.

use patchbay_tests::double::{arena, Double, Script};

fn main() {
    if let Err(e) = run() {
        eprintln!("model-double: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut port = 11434u16;
    let mut script = Script::default();
    let (mut tasks, mut scenarios, mut rounds) = (None, None, 3usize);
    let mut expected: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--port" => port = value()?.parse().map_err(|e| format!("--port: {e}"))?,
            "--script" => {
                let f = value()?;
                let text = std::fs::read_to_string(&f).map_err(|e| format!("{f}: {e}"))?;
                script = serde_json::from_str(&text).map_err(|e| format!("{f}: {e}"))?;
            }
            "--arena" => tasks = Some(value()?),
            "--scenarios" => scenarios = Some(value()?),
            "--rounds" => rounds = value()?.parse().map_err(|e| format!("--rounds: {e}"))?,
            "--expected" => expected = Some(value()?),
            "-h" | "--help" => {
                println!("model-double [--port N] [--script FILE | --arena TASKS --scenarios FILE [--rounds N] [--expected FORMATS]]");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if let (Some(t), Some(f)) = (&tasks, &scenarios) {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{f}: {e}"))?;
        let plan: arena::Plan = serde_json::from_str(&text).map_err(|e| format!("{f}: {e}"))?;
        let tasks = arena::tasks(std::path::Path::new(t))?;
        if let Some(list) = &expected {
            let formats: Vec<&str> = list.split(',').collect();
            let runs = arena::expected_runs(&tasks, &formats, &plan, rounds);
            println!(
                "{}",
                serde_json::to_string(&runs).map_err(|e| e.to_string())?
            );
            return Ok(());
        }
        let formats: Vec<&str> = patchbay::formats::all().iter().map(|f| f.name()).collect();
        script = arena::script(&tasks, &formats, &plan, rounds);
    } else if tasks.is_some() || scenarios.is_some() {
        return Err("--arena and --scenarios go together".into());
    }
    let d =
        Double::start(script, port).map_err(|e| format!("cannot listen on port {port}: {e}"))?;
    println!("listening on {}", d.url());
    loop {
        std::thread::park();
    }
}
