//! The `--help` texts of the CLI, one constant a command (kept apart from
//! the parsing in `args.rs`, which only picks them).

pub const MAIN_HELP: &str = "\
patchbay: apply code edits written by language models, or refuse with a typed error.

Usage: patchbay <COMMAND> [OPTIONS]

Commands:
  apply         apply a model output (SEARCH/REPLACE blocks, whole files, ...) to files under a root
  render        print the canonical edit in a format that turns BEFORE into AFTER
  tag           print a file's tagged view (`N:TAG content`) for hashline edits
  diagnose      say hunk by hunk why a unified diff fails strictly; --repair, --fuzz
  check-output  check a reply with declared counts (`Total: N`, `## Item n/N`) for truncation
  outline       list a file's definitions (functions, classes, methods, ...) with their lines
  slice         print one symbol of a file, dedented, to edit it alone
  splice        put an edited slice back into its file
  tokens        count the tokens of files (built-in estimator or an exact vocabulary)
  compare       every format's edit from BEFORE to AFTER, its size, and which to use
  budget        plan what fits in a context window (system, reserve, memory, code)
  run           let a local model (Ollama, OpenAI-compatible) edit files, round by round
  arena         score edit formats for models on a task set
  help          print this help, or a command's help (`patchbay help apply`)

Options:
  -h, --help     print help
  -V, --version  print the version

Exit codes: 0 success, 1 some edit failed, 2 usage or I/O error, 3 truncated output.
";

pub const APPLY_HELP: &str = "\
Apply a model output to files under a root, all or nothing.

Usage: patchbay apply --edits OUT.txt [--root DIR] [--file PATH] [--format NAME]
                      [--dry-run] [--json] [--partial] [--strict]
                      [--tag-len N] [--tag-line] [--stream [--fail-fast]]
                      [--check-syntax] [--fail-on-syntax] [--stop-reason WHY]
                      [--overwrite]

Options:
  --edits OUT.txt  the model output to apply (`-` reads stdin)
  --root DIR       the folder the output's paths resolve under [default: .]
  --file PATH      target for edits that name no file (relative to the root)
  --format NAME    edit format: search-replace, whole, apply-patch, hashline,
                   lines, tool-call, udiff, or auto to detect it [default: auto]
  --dry-run        check and report, write nothing
  --json           print one JSON report object instead of text
  --partial        write the edits that applied even when others failed
  --strict         exact matching only; take line numbers and counts literally
  --tag-len N      hashline tag length, 2-8 [default: 4]
  --tag-line       hashline tags hash the line number too
  --stream         read the output as it arrives and judge each edit as soon
                   as it is complete (one line per edit, JSON with --json)
  --fail-fast      with --stream: stop reading at the first failing edit,
                   write nothing and exit 1
  --check-syntax   parse the edited files (tree-sitter, by extension) and warn
                   about syntax errors the edits introduced
  --fail-on-syntax like --check-syntax, but such an error fails the edit
                   (code `syntax_error`) and nothing is written
  --stop-reason WHY why the model stopped, as its server said: `stop` (or
                   end_turn) lets a reply that only may be cut apply (a diff
                   whose last hunk is shorter than its header); `length` (or
                   max_tokens) makes the reply truncated, nothing written
  --overwrite      Codex's rule: an added file (`*** Add File:`, `create`)
                   replaces an existing one, and a move may land on one
  -h, --help       print help

Paths that are absolute, climb out with `..`, or leave the root through a
symbolic link are refused with the code `path_escape`. Files are written
only when every edit applied, and all or nothing on disk too: temporary
files first, originals kept until every rename succeeded (a failure puts
them back), and a journal (`.patchbay-journal` in the root) with which the
next writing run rolls back or finishes a commit that was killed. Owner,
group, mode and extended attributes are kept. Two runs in one root take
turns (an advisory lock); a file that another program wrote after it was
read is refused with the code `file_changed` and nothing is written.

Exit codes: 0 every edit applied, 1 some edit failed (the feedback for the
model is printed; `file_changed` too), 2 usage or I/O error (a refused
rename or deletion: rolled back, the message says so), 3 the output was
truncated.
";

pub const RENDER_HELP: &str = "\
Print the canonical edit in a format that turns BEFORE into AFTER.

Usage: patchbay render --format NAME BEFORE AFTER

The edit names the file by BEFORE as given on the command line.

Options:
  --format NAME  the edit format to write (required)
  -h, --help     print help
";

pub const TAG_HELP: &str = "\
Print a file as a model must see it to edit it by line: the tagged view for
hashline edits (`N:TAG content` a line), or with --crc the `lines` format's
view (a `# file: PATH crc32=... lines=N` header and numbered lines).

Usage: patchbay tag FILE [--tag-len N] [--tag-line] [--crc]

TAG is the first N characters of the base64url CRC-32 of the line without
its trailing whitespace (N = 4 by default).

Options:
  --tag-len N  characters per tag, 2-8 [default: 4]
  --tag-line   hash the line number too
  --crc        the `lines` format's view (file CRC and numbered lines)
  -h, --help   print help

Exit codes: 0 printed, 2 usage or I/O error, or FILE is not one `apply`
edits (a NUL byte, invalid UTF-8).
";

pub const CHECK_HELP: &str = "\
Check a reply that declares its count for truncation.

Usage: patchbay check-output OUT.txt [--stop-reason R] [--json] [--continuation]

The reply declares `Total: N` and `Order: ...` first and numbers its items
`## Item n/N` (the heading may also be Finding, Issue, Problem, Change, Edit,
Step, Point or Comment), each with the fields `- Location:`, `- Severity:`,
`- Claim:` and `- Quote:` on lines of their own; an item lacking a field is
not complete. The Japanese labels of the original protocol (総件数, 並び,
指摘; 場所, 深刻度, 主張, 引用) are understood too. A JSON reply cut
mid-document still yields a leading \"total\" and its complete items.

Options:
  --stop-reason R  the API's stop reason (`length`, `max_tokens`, `stop`)
  --json           print the check as JSON
  --continuation   print the continuation prompt for a cut reply
  -h, --help       print help

Exit codes: 0 complete, 3 truncated, 1 inconsistent, 2 usage or I/O error
or an empty reply (only whitespace: nothing was cut, nothing arrived).
";

pub const OUTLINE_HELP: &str = "\
List a file's definitions: functions, methods, classes, structs, enums,
traits and interfaces, impl blocks, modules (tree-sitter).

Usage: patchbay outline FILE [--json] [--language NAME]

Each line: the symbol's lines (leading doc comments and attributes
included), its kind and its qualified name (`Greeter::hello`, `A.B.m`).

Options:
  --json           print the outline as JSON (byte and line ranges too)
  --language NAME  rust, python, javascript, typescript, tsx, go, java, c,
                   cpp [default: from FILE's extension]
  -h, --help       print help
";

pub const SLICE_HELP: &str = "\
Print one symbol of a file, dedented, as a file of its own.

Usage: patchbay slice FILE SYMBOL [--json] [--language NAME]

SYMBOL is a qualified name (`Greeter::hello`), a name if it is unique
(`hello`), or a line number (the innermost symbol there).

Options:
  --json           print the slice with its origin (path, lines, indentation,
                   the file's CRC-32) for `patchbay splice`
  --language NAME  the language [default: from FILE's extension]
  -h, --help       print help

Exit codes: 0 printed, 1 no such symbol (or several), 2 usage or I/O error.
";

pub const SPLICE_HELP: &str = "\
Put an edited slice back into its file, re-indented, and write the file
atomically.

Usage: patchbay splice FILE SYMBOL SLICE [--dry-run] [--language NAME]

SLICE (`-` reads stdin) is the JSON of `patchbay slice --json` with its
`text` edited: it is refused, with exit code 1, if FILE changed since it
was cut or if it was cut from another symbol, and (exit code 1, `not a
slice`) if it starts with `{` but is not a whole, valid slice: cut JSON,
numbers out of range, an indent that is not spaces and tabs. Nothing is
written before every check passed. A plain-text SLICE replaces SYMBOL as
FILE is now, with no such check. Syntax errors the edit introduced are
reported as warnings.

Options:
  --dry-run        print the new file instead of writing it
  --language NAME  the language [default: from FILE's extension]
  -h, --help       print help
";

pub const DIAGNOSE_HELP: &str = "\
Diagnose a unified diff against the files under a root: for every hunk, why
strict application (`git apply`) fails or succeeds, and where the default
lenient mode applies it.

Usage: patchbay diagnose OUT.txt [--root DIR] [--json] [--repair | --fuzz]

Options:
  --root DIR  the folder the diff's paths resolve under [default: .]
  --json      print the findings as JSON
  --repair    print a corrected diff that `git apply` accepts instead
  --fuzz      show where GNU patch (default fuzz 2) would put each hunk,
              and flag the places that differ from the only safe one
  -h, --help  print help

Exit codes: 0 every hunk applies strictly (or the repair succeeded),
1 some hunk does not, 2 usage or I/O error.
";

#[cfg(test)]
mod tests {
    #[test]
    fn apply_help_names_every_format() {
        for name in patchbay::formats::names() {
            assert!(super::APPLY_HELP.contains(name), "{name} missing");
        }
    }
}
