//! The command line, declared with clap's derive: one [`Command`] variant
//! and one `Args` struct a command, whose doc comments are the `--help`
//! texts. clap reports every usage error (unknown, repeated or missing
//! flags, bad values, flags that conflict) and `main` turns it into exit
//! code 2. Values are checked here when the check needs nothing but the
//! value (a format name, a tag length, a tokenizer); what needs the files is
//! checked by the command. The exit codes are documented in
//! docs/contracts.md.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use patchbay::budget::advisor::CompareOptions;
use patchbay::budget::PlanOptions;
use patchbay::FormatName;
use std::path::PathBuf;

/// patchbay: apply code edits written by language models, or refuse with a
/// typed error.
#[derive(Debug, Parser)]
// `help` is a command of its own (below), so that `help --help` is help too.
#[command(name = "patchbay", version, term_width = 80)]
#[command(disable_help_subcommand = true, arg_required_else_help = false)]
#[command(
    after_help = "Exit codes: 0 success, 1 some edit failed, 2 usage or I/O error, \
3 truncated output."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// One variant a command, in the order `--help` lists them.
#[derive(Debug, Subcommand)]
pub enum Command {
    Apply(ApplyArgs),
    Render(RenderArgs),
    Tag(TagArgs),
    Diagnose(DiagnoseArgs),
    CheckOutput(CheckArgs),
    Outline(OutlineArgs),
    Slice(SliceArgs),
    Splice(SpliceArgs),
    Tokens(TokensArgs),
    Compare(CompareArgs),
    Budget(BudgetArgs),
    Run(RunArgs),
    Arena(ArenaArgs),
    Mcp(McpArgs),
    Completions(CompletionsArgs),
    Help(HelpArgs),
}

/// Apply a model output (SEARCH/REPLACE blocks, whole files, ...) to files
/// under a root, all or nothing.
#[derive(Debug, Args)]
#[command(after_help = "\
Paths that are absolute, climb out with `..`, or leave the root through a
symbolic link are refused with the code `path_escape`, and so are
patchbay's own files (its journal, temporaries and backups) and paths in a
`.git` folder (unless --allow-git-dir). Only regular files are read or
written (a FIFO or a device is an error). Files are written
only when every edit applied, and all or nothing on disk too: temporary
files first, originals kept until every rename succeeded (a failure puts
them back), and a journal (`.patchbay-journal` in the root) with which the
next writing run rolls back or finishes a commit that was killed. Owner,
group, mode and extended attributes are kept. Two runs in one root take
turns (an advisory lock), as do runs that reach one file through other
roots while they write it; a file that another program wrote after it was
read is refused with the code `file_changed` and nothing is written.

Exit codes: 0 every edit applied, 1 some edit failed (the feedback for the
model is printed; `file_changed` too), 2 usage or I/O error (a refused
rename or deletion: rolled back, the message says so), 3 the output was
truncated.")]
pub struct ApplyArgs {
    /// The model output to apply (`-` reads stdin)
    #[arg(long, value_name = "OUT.txt")]
    pub edits: String,
    /// The folder the output's paths resolve under
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// Target for edits that name no file (relative to the root)
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// The edit format, or auto to detect it
    #[arg(long, value_name = "NAME", default_value = "auto", value_parser = format_names(true))]
    pub format: FormatName,
    /// Check and report, write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print one JSON report object instead of text
    #[arg(long)]
    pub json: bool,
    /// Write the edits that applied even when others failed
    #[arg(long)]
    pub partial: bool,
    /// Exact matching only; take line numbers and counts literally
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub tags: TagFlags,
    /// Read the output as it arrives and judge each edit as soon as it is
    /// complete (one line per edit, JSON with --json)
    #[arg(long)]
    pub stream: bool,
    /// With --stream: stop reading at the first failing edit, write nothing
    /// and exit 1
    #[arg(long, requires = "stream")]
    pub fail_fast: bool,
    /// Parse the edited files (tree-sitter, by extension) and warn about
    /// syntax errors the edits introduced
    #[arg(long)]
    pub check_syntax: bool,
    /// Like --check-syntax, but such an error fails the edit (code
    /// `syntax_error`) and nothing is written
    #[arg(long)]
    pub fail_on_syntax: bool,
    /// Why the model stopped, as its server said: `stop` (or end_turn) lets a
    /// reply that only may be cut apply (a diff whose last hunk is shorter
    /// than its header); `length` (or max_tokens) makes the reply truncated,
    /// nothing written
    #[arg(long, value_name = "WHY", value_parser = stop_reason)]
    pub stop_reason: Option<patchbay::StopReason>,
    /// Codex's rule: an added file (`*** Add File:`, `create`) replaces an
    /// existing one, and a move may land on one
    #[arg(long)]
    pub overwrite: bool,
    /// Let edits write inside `.git` folders (hooks and config there run
    /// code at the next git command; refused by default)
    #[arg(long)]
    pub allow_git_dir: bool,
}

impl ApplyArgs {
    /// Whether the edited files are parsed (`--fail-on-syntax` implies it).
    pub fn checks_syntax(&self) -> bool {
        self.check_syntax || self.fail_on_syntax
    }
}

/// The hashline tag flags, shared by `apply` and `tag`.
#[derive(Debug, Args)]
pub struct TagFlags {
    /// Characters per hashline tag, 2-8
    #[arg(long = "tag-len", value_name = "N", default_value_t = 4, value_parser = tag_len)]
    pub len: usize,
    /// Hashline tags hash the line number too
    #[arg(long = "tag-line")]
    pub with_line: bool,
}

impl TagFlags {
    pub fn options(&self) -> patchbay::TagOptions {
        patchbay::TagOptions {
            len: self.len,
            with_line: self.with_line,
        }
    }
}

/// Print the canonical edit in a format that turns BEFORE into AFTER.
///
/// The edit names the file by BEFORE as given on the command line.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The edit format to write
    #[arg(long, value_name = "NAME", value_parser = format_names(false))]
    pub format: FormatName,
    /// The file as it is (the edit names it by this path)
    pub before: String,
    /// The file as it should be
    pub after: String,
}

/// Print a file's tagged view (`N:TAG content`) for hashline edits.
///
/// Print a file as a model must see it to edit it by line: the tagged view
/// for hashline edits (`N:TAG content` a line), or with --crc the `lines`
/// format's view (a `# file: PATH crc32=... lines=N` header and numbered
/// lines). TAG is the first N characters of the base64url CRC-32 of the line
/// without its trailing whitespace (N = 4 by default; docs/contracts.md
/// gives the algorithm).
#[derive(Debug, Args)]
#[command(
    after_help = "Exit codes: 0 printed, 2 usage or I/O error, or FILE is not one \
`apply` edits (a NUL byte, invalid UTF-8)."
)]
pub struct TagArgs {
    /// The file to show (`-` reads stdin)
    pub file: String,
    #[command(flatten)]
    pub tags: TagFlags,
    /// The `lines` format's view (file CRC and numbered lines)
    #[arg(long)]
    pub crc: bool,
}

/// Say hunk by hunk why a unified diff fails strictly; --repair, --fuzz.
///
/// Diagnose a unified diff against the files under a root: for every hunk,
/// why strict application (`git apply`) fails or succeeds, and where the
/// default lenient mode applies it.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit codes: 0 every hunk applies strictly (or the repair succeeded), \
1 some hunk does not, 2 usage or I/O error."
)]
pub struct DiagnoseArgs {
    /// The model output holding the diff (`-` reads stdin)
    #[arg(value_name = "OUT.txt")]
    pub output: String,
    /// The folder the diff's paths resolve under
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// Print the findings as JSON
    #[arg(long)]
    pub json: bool,
    /// Print a corrected diff that `git apply` accepts instead
    #[arg(long, conflicts_with = "fuzz")]
    pub repair: bool,
    /// Show where GNU patch (default fuzz 2) would put each hunk, and flag
    /// the places that differ from the only safe one
    #[arg(long)]
    pub fuzz: bool,
}

/// Check a reply with declared counts (`Total: N`, `## Item n/N`) for
/// truncation.
///
/// The reply declares `Total: N` and `Order: ...` first and numbers its items
/// `## Item n/N` (the heading may also be Finding, Issue, Problem, Change,
/// Edit, Step, Point or Comment), each with the fields `- Location:`,
/// `- Severity:`, `- Claim:` and `- Quote:` on lines of their own; an item
/// lacking a field is not complete. The Japanese labels of the original
/// protocol (総件数, 並び, 指摘; 場所, 深刻度, 主張, 引用) are understood too. A
/// JSON reply cut mid-document still yields a leading "total" and its
/// complete items.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit codes: 0 complete, 3 truncated, 1 inconsistent, 2 usage or I/O \
error or an empty reply (only whitespace: nothing was cut, nothing arrived)."
)]
pub struct CheckArgs {
    /// The reply to check (`-` reads stdin)
    #[arg(value_name = "OUT.txt")]
    pub output: String,
    /// The API's stop reason (`length`, `max_tokens`, `stop`)
    #[arg(long, value_name = "R")]
    pub stop_reason: Option<String>,
    /// Print the check as JSON
    #[arg(long)]
    pub json: bool,
    /// Print the continuation prompt for a cut reply
    #[arg(long)]
    pub continuation: bool,
}

/// List a file's definitions (functions, classes, methods, ...) with their
/// lines.
///
/// List a file's definitions: functions, methods, classes, structs, enums,
/// traits and interfaces, impl blocks, modules (tree-sitter). Each line: the
/// symbol's lines (leading doc comments and attributes included), its kind
/// and its qualified name (`Greeter::hello`, `A.B.m`). C and C++ are
/// outlined in every branch of their `#if`/`#else` conditionals (up to 8
/// configurations). An outline without symbols says why on stderr (`notes`
/// in the JSON). Files over 32 MiB are refused before they are read (exit 2,
/// code too_large), as by `slice` and `splice`.
#[derive(Debug, Args)]
pub struct OutlineArgs {
    /// The source file
    pub file: String,
    /// Print the outline as JSON (byte and line ranges too)
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub language: LanguageFlag,
}

/// Print one symbol of a file, dedented, to edit it alone.
///
/// SYMBOL is a qualified name (`Greeter::hello`), a name if it is unique
/// (`hello`), or a line number (the innermost symbol there).
#[derive(Debug, Args)]
#[command(
    after_help = "Exit codes: 0 printed, 1 no such symbol (or several), 2 usage or I/O \
error."
)]
pub struct SliceArgs {
    /// The source file
    pub file: String,
    /// A qualified name, a unique name, or a line number
    pub symbol: String,
    /// Print the slice with its origin (path, lines, indentation, the file's
    /// CRC-32) for `patchbay splice`
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub language: LanguageFlag,
}

/// Put an edited slice back into its file.
///
/// Put an edited slice back into its file, re-indented, and write the file
/// atomically. SLICE (`-` reads stdin) is the JSON of `patchbay slice --json`
/// with its `text` edited: it is refused, with exit code 1, if FILE changed
/// since it was cut or if it was cut from another symbol, and (exit code 1,
/// `not a slice`) if it starts with `{` but is not a whole, valid slice: cut
/// JSON, numbers out of range, an indent that is not spaces and tabs.
/// Nothing is written before every check passed. A plain-text SLICE replaces
/// SYMBOL as FILE is now, with no such check. Syntax errors the edit
/// introduced are reported as warnings.
#[derive(Debug, Args)]
pub struct SpliceArgs {
    /// The source file to write
    pub file: String,
    /// The symbol the slice replaces
    pub symbol: String,
    /// The edited slice: `slice --json`'s JSON or plain text (`-` reads stdin)
    pub slice: String,
    /// Print the new file instead of writing it
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub language: LanguageFlag,
}

/// `--language`, shared by the syntax commands.
#[derive(Debug, Args)]
pub struct LanguageFlag {
    /// rust, python, javascript, typescript, tsx, go, java, c, cpp [default:
    /// from FILE's extension]
    #[arg(long = "language", value_name = "NAME")]
    pub name: Option<String>,
}

/// Count the tokens of files (built-in estimator or an exact vocabulary).
///
/// FILE `-` reads stdin. The default tokenizer is the built-in estimator for
/// o200k_base (GPT-4o): no vocabulary, within a few percent on code.
#[derive(Debug, Args)]
pub struct TokensArgs {
    /// The files to count (`-` reads stdin)
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// estimate, estimate:FAMILY (o200k_base, cl100k_base, llama3, qwen2,
    /// deepseek_v3, gemma), an exact vocabulary (o200k_base, cl100k_base,
    /// llama3, qwen2, deepseek_v3), or `all`
    #[arg(long, value_name = "NAME", default_value = "estimate", value_parser = tokenizer_or_all)]
    pub tokenizer: String,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

/// Every format's edit from BEFORE to AFTER, its size, and which to use.
///
/// Whole-file rewrites are advised for files under N lines or when more than
/// PCT percent of the lines change; otherwise the cheapest format whose edit
/// applies back unambiguously.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The file as it is
    pub before: String,
    /// The file as it should be
    pub after: String,
    /// How to count (see `patchbay help tokens`)
    #[arg(long, value_name = "NAME", default_value = "estimate", value_parser = tokenizer)]
    pub tokenizer: String,
    /// Line count under which files are rewritten whole
    #[arg(long, value_name = "N", default_value_t = CompareOptions::default().whole_below_lines)]
    pub whole_below: usize,
    /// Changed share above which files are rewritten whole (percent)
    #[arg(long, value_name = "PCT", value_parser = percent,
          default_value_t = (100.0 * CompareOptions::default().whole_above_change).round())]
    pub whole_above: f64,
    /// Print JSON (with every edit's text)
    #[arg(long)]
    pub json: bool,
}

/// Plan what fits in a context window (system, reserve, memory, code).
///
/// Plan what fits in a model's context window: keep the system prompt, the
/// task and the reply reserve; then the code the task needs; then memory
/// (newest first) and folder context; then more code until the window is
/// full. Files over the line-index threshold are sent as the sections the
/// task names or uses, with their original line numbers.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit codes: 0 a plan fits, 1 even the minimum (system + task + reserve \
+ the target sections) does not fit, 2 usage or I/O error."
)]
pub struct BudgetArgs {
    /// The context window in tokens
    #[arg(long, value_name = "N")]
    pub window: usize,
    /// The system prompt
    #[arg(long, value_name = "FILE")]
    pub system: Option<String>,
    /// Tokens reserved for the reply
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub reserve: usize,
    /// The task (its identifiers and line numbers pick the sections)
    #[arg(long, value_name = "TEXT", conflicts_with = "task_file")]
    pub task: Option<String>,
    /// The task, read from a file
    #[arg(long, value_name = "FILE")]
    pub task_file: Option<String>,
    /// A memory entry; repeat, oldest first
    #[arg(long, value_name = "FILE")]
    pub memory: Vec<String>,
    /// Folder or project context; repeat, most useful first
    #[arg(long, value_name = "FILE")]
    pub context: Vec<String>,
    /// How to count (see `patchbay help tokens`)
    #[arg(long, value_name = "NAME", default_value = "estimate", value_parser = tokenizer)]
    pub tokenizer: String,
    /// Files over N lines are sent as sections
    #[arg(long, value_name = "N", default_value_t = PlanOptions::default().index_threshold)]
    pub index_threshold: usize,
    /// `sections` ([lines A-B] markers) or `every` (N| prefixes)
    #[arg(long, value_name = "MODE", value_enum, default_value_t = LineNumbersArg::Sections)]
    pub line_numbers: LineNumbersArg,
    /// Where sections come from: `syntax` (tree-sitter, for the languages
    /// `patchbay outline` knows; others fall back) or `heuristic`
    /// (indentation and brackets)
    #[arg(long, value_name = "SOURCE", value_enum, default_value_t = OutlineSource::Syntax)]
    pub outline: OutlineSource,
    /// Tokens the chat template adds
    #[arg(long, value_name = "N", default_value_t = PlanOptions::default().overhead)]
    pub overhead: usize,
    /// The reply will hold N items ...
    #[arg(long, value_name = "N", requires = "per_item")]
    pub expect_items: Option<usize>,
    /// ... of about N tokens each: warn when they would pass half the reply
    /// reserve
    #[arg(long, value_name = "N", requires = "expect_items")]
    pub per_item: Option<usize>,
    /// Also print the text to send for each file
    #[arg(long)]
    pub excerpt: bool,
    /// Print the plan as JSON (excerpts included)
    #[arg(long)]
    pub json: bool,
    /// The code files the task is about
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
}

/// `budget --line-numbers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LineNumbersArg {
    Sections,
    Every,
}

/// `budget --outline`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutlineSource {
    Syntax,
    Heuristic,
}

/// Let a local model (Ollama, OpenAI-compatible) edit files, round by round.
///
/// The model gets the format's instructions, the task and the files (whole,
/// or the sections the budget plan chose when they do not fit), streams its
/// reply, and patchbay judges each edit as it completes. Failed edits go back
/// with the engine's feedback; a cut reply is continued. Each round's changes
/// are written all or nothing.
#[derive(Debug, Args)]
#[command(after_help = "\
Exit codes: 0 the task's edits applied, 1 the model did not get there
within the rounds, 2 usage or connection error.")]
pub struct RunArgs {
    /// The model, as the server names it
    #[arg(long, value_name = "NAME")]
    pub model: String,
    /// The edit format
    #[arg(long, value_name = "FMT", value_parser = format_names(false))]
    pub format: FormatName,
    /// What to do
    #[arg(long, value_name = "TEXT")]
    pub task: String,
    #[command(flatten)]
    pub server: ServerFlags,
    /// Sampling seed
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Files resolve under DIR
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// Write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print the rounds as JSON lines
    #[arg(long)]
    pub json: bool,
    /// Let the model write inside `.git` folders (refused by default)
    #[arg(long)]
    pub allow_git_dir: bool,
    /// The files the model edits
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<String>,
}

/// Serve the read and edit tools to a coding agent: a Model Context
/// Protocol server on stdin and stdout.
///
/// Tools: read, search, outline, tokens (read-only), edit (the mode's
/// edit) and apply (a whole reply in any format). Writes go through the
/// same layer as `apply`: all or nothing, under --root, journalled and
/// locked. docs/agents.md shows how to register it with an agent.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The folder the tools read and write under (paths outside it are
    /// refused with the code path_escape)
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// Which view `read` and `search` show and which edits `edit` takes:
    /// hashline (N:TAG lines, edits by line and tag), lines (numbered lines,
    /// edits by range, checked against what was shown), str-replace (plain
    /// text, old_str/new_str), any (tagged view, every kind of edit)
    #[arg(long, value_name = "MODE", default_value = "hashline", value_parser = ["hashline", "lines", "str-replace", "any"])]
    pub mode: String,
    #[command(flatten)]
    pub tags: TagFlags,
    /// A file whose view is larger than this many tokens is read as its
    /// outline and the sections the budget planner picks for the task
    #[arg(long, value_name = "TOKENS", default_value_t = 6000)]
    pub budget: usize,
    /// How tokens are counted (a family estimate such as llama, or an exact
    /// vocabulary such as o200k_base)
    #[arg(long, value_name = "NAME", default_value = "o200k_base", value_parser = tokenizer)]
    pub tokenizer: String,
}

/// Measure which edit format a model handles: every task of a task set
/// with every model and format, N trials each.
///
/// DIR holds one folder a task: task.json with "task", before/ with the
/// files, after/ with the expected result. The runs go through the same loop
/// as `patchbay run`, in memory, with seeds SEED, SEED+1, ... Every run's
/// scores go to --out and a Markdown table per model and format to --summary
/// (and stdout).
#[derive(Debug, Args)]
pub struct ArenaArgs {
    /// The task set
    #[arg(long, value_name = "DIR")]
    pub tasks: PathBuf,
    /// Models, as the server names them
    #[arg(long, value_name = "A,B", value_delimiter = ',', required = true)]
    pub models: Vec<String>,
    /// Edit formats (default: all)
    #[arg(long, value_name = "X,Y", value_delimiter = ',', value_parser = format_names(false))]
    pub formats: Vec<FormatName>,
    /// Runs per task, model and format
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub trials: u32,
    /// The runs and the summary as JSON
    #[arg(long, value_name = "FILE", default_value = "arena-results.json")]
    pub out: PathBuf,
    /// The Markdown summary (default: --out with .md)
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    #[command(flatten)]
    pub server: ServerFlags,
    /// The first trial's sampling seed
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
}

/// How `run` and `arena` reach the model and how long a loop may go (both
/// read it as it is: `run` builds the server and the loop from it).
#[derive(Debug, Args)]
pub struct ServerFlags {
    /// The server (default http://localhost:11434 for ollama,
    /// http://localhost:1234 for openai)
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// ollama, or openai for /v1/chat/completions (LM Studio, llama-server, vLLM)
    #[arg(long, value_name = "P", default_value = "ollama")]
    pub provider: patchbay::edit_loop::wire::Provider,
    /// Requests at most, retries and continuations included
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub rounds: usize,
    /// The context window to plan with (default: the server's: an Ollama
    /// model's, at most 8192; an OpenAI-compatible server's whole context).
    /// More than the server has warns and plans with the server's
    #[arg(long, value_name = "N")]
    pub num_ctx: Option<usize>,
    /// Reply tokens at most
    #[arg(long, value_name = "N", default_value_t = 2048)]
    pub reply_limit: usize,
    /// Reply bytes read at most (text and thinking), for a server that
    /// ignores the reply limit: past them reading stops and the reply
    /// counts as cut (default: 64 a token of --reply-limit)
    #[arg(long, value_name = "N", value_parser = reply_bytes())]
    pub max_reply_bytes: Option<usize>,
    /// Seconds to wait for the server's next byte before giving up
    #[arg(long, value_name = "S", default_value = "120", value_parser = idle_seconds)]
    pub idle_timeout: std::time::Duration,
    /// Let a thinking model think
    #[arg(long)]
    pub think: bool,
    /// Let the model finish a reply whose edit failed
    #[arg(long)]
    pub no_early_stop: bool,
}

/// Print a shell completion script (bash, zsh, fish, elvish, powershell).
///
/// For bash: `patchbay completions bash > ~/.local/share/bash-completion/completions/patchbay`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    pub shell: clap_complete::Shell,
}

/// Print this help, or a command's help (`patchbay help apply`).
#[derive(Debug, Args)]
pub struct HelpArgs {
    /// The command to explain
    pub command: Option<String>,
}

/// `--idle-timeout`: positive seconds, at most a day (a finite `Duration`).
fn idle_seconds(s: &str) -> Result<std::time::Duration, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if v > 0.0 && v <= 86_400.0 {
        Ok(std::time::Duration::from_secs_f64(v))
    } else {
        Err("expected seconds above 0 and at most 86400".into())
    }
}

/// `--max-reply-bytes`: at least 1.
fn reply_bytes() -> impl TypedValueParser<Value = usize> {
    clap::value_parser!(u64)
        .range(1..)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// The format names `--format` takes (with `auto` for reading), as a
/// [`FormatName`]: the one check of a name the command line gets, with the
/// names listed in `--help`.
fn format_names(with_auto: bool) -> impl TypedValueParser<Value = FormatName> {
    let names = FormatName::ALL
        .into_iter()
        .filter(move |n| with_auto || *n != FormatName::Auto)
        .map(FormatName::as_str);
    PossibleValuesParser::new(names).try_map(|n| n.parse::<FormatName>())
}

fn tag_len(v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if (2..=8).contains(&n) => Ok(n),
        _ => Err("takes a number from 2 to 8".into()),
    }
}

fn stop_reason(v: &str) -> Result<patchbay::StopReason, String> {
    v.parse()
}

/// A tokenizer name the core knows, kept as given (`budget.rs` builds it).
fn tokenizer(v: &str) -> Result<String, String> {
    patchbay::budget::tokens::Tokenizer::parse(v)
        .map(|_| v.to_owned())
        .map_err(|e| e.to_string())
}

/// [`tokenizer`], or `all` (every exact vocabulary and family estimate).
fn tokenizer_or_all(v: &str) -> Result<String, String> {
    if v == "all" {
        return Ok(v.to_owned());
    }
    tokenizer(v)
}

/// A percentage from 0 to 100, with or without `%`.
fn percent(v: &str) -> Result<f64, String> {
    match v.trim_end_matches('%').parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err("takes a percentage from 0 to 100".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> Result<Command, clap::Error> {
        Cli::try_parse_from(["patchbay"].iter().chain(args)).map(|c| c.command)
    }

    #[test]
    fn declarations_are_consistent() {
        // clap's own checks: no two flags with one name, every `requires`
        // and `conflicts_with` names a flag that exists, ...
        Cli::command().debug_assert();
    }

    #[test]
    fn apply_flags_both_spellings() {
        let Ok(Command::Apply(a)) = parse(&[
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
        assert_eq!(
            (a.file.as_deref(), a.tags.len, a.tags.with_line),
            (None, 4, false)
        );
        assert!(!a.checks_syntax());
        let Ok(Command::Apply(a)) = parse(&["apply", "--edits", "o", "--fail-on-syntax"]) else {
            panic!("not an apply command")
        };
        assert!(a.checks_syntax() && a.fail_on_syntax);
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
            &["apply", "--edits", "o", "--fail-fast"],
            &["apply", "--edits", "o", "--tag-len", "9"],
            &["render", "--format", "whole", "a"],
            &["render", "--format", "auto", "a", "b"],
            &["diagnose", "o", "--repair", "--fuzz"],
            &[
                "budget",
                "--window",
                "10",
                "--task",
                "t",
                "--task-file",
                "f",
            ],
            &["budget", "--window", "10", "--expect-items", "3"],
            &["compare", "a", "b", "--whole-above", "150"],
            &["tokens"],
            &["frobnicate"],
            &[],
        ] {
            let e = parse(bad).expect_err(&format!("{bad:?}"));
            assert!(e.use_stderr(), "{bad:?} is a usage error, not help");
        }
    }

    #[test]
    fn syntax_commands() {
        let Ok(Command::Slice(s)) = parse(&["slice", "a.rs", "A::f", "--json"]) else {
            panic!("not a slice command")
        };
        assert_eq!(
            (s.file.as_str(), s.symbol.as_str(), s.json),
            ("a.rs", "A::f", true)
        );
        let Ok(Command::Splice(s)) = parse(&["splice", "a", "f", "-", "--language=rust"]) else {
            panic!("not a splice command")
        };
        assert_eq!(
            (s.slice.as_str(), s.language.name.as_deref()),
            ("-", Some("rust"))
        );
        assert!(parse(&["outline"]).is_err());
        assert!(parse(&["slice", "a.rs"]).is_err());
        assert!(parse(&["splice", "a", "f", "s", "--json"]).is_err());
    }

    #[test]
    fn budget_repeats_memory_and_context_in_order() {
        let Ok(Command::Budget(b)) = parse(&[
            "budget",
            "--window",
            "9",
            "--memory",
            "m1",
            "--context=c1",
            "--memory=m2",
            "x.rs",
            "--",
            "-y.rs",
        ]) else {
            panic!("not a budget command")
        };
        assert_eq!(b.memory, ["m1", "m2"]);
        assert_eq!(b.context, ["c1"]);
        assert_eq!(b.files, ["x.rs", "-y.rs"]);
        assert_eq!(
            (b.window, b.reserve, b.line_numbers),
            (9, 2000, LineNumbersArg::Sections)
        );
    }

    #[test]
    fn compare_takes_a_percentage_with_or_without_the_sign() {
        let Ok(Command::Compare(c)) = parse(&["compare", "a", "b", "--whole-above", "12.5%"])
        else {
            panic!("not a compare command")
        };
        assert_eq!(c.whole_above, 12.5);
        let Ok(Command::Compare(c)) = parse(&["compare", "a", "b"]) else {
            panic!("not a compare command")
        };
        assert_eq!(
            c.whole_above / 100.0,
            CompareOptions::default().whole_above_change
        );
    }

    #[test]
    fn render_after_double_dash_takes_dashed_names() {
        let Ok(Command::Render(r)) = parse(&["render", "--format", "whole", "--", "-a", "b"])
        else {
            panic!("not a render command")
        };
        assert_eq!(
            (r.format.as_str(), r.before.as_str(), r.after.as_str()),
            ("whole", "-a", "b")
        );
    }

    #[test]
    fn apply_help_names_every_format() {
        let help = Cli::command()
            .find_subcommand_mut("apply")
            .map(|c| c.render_long_help().to_string())
            .unwrap_or_default();
        for name in patchbay::formats::names() {
            assert!(help.contains(name), "{name} missing");
        }
    }
}
