//! The tools as `tools/list` shows them: a JSON Schema for the arguments
//! with a description of every field, and a worked example in each tool's
//! description, so a model can call them from the list alone. The `edit`
//! tool's schema is the mode's.

use super::Mode;
use rmcp::model::Tool;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Every tool, in the order `tools/list` gives them.
pub const NAMES: [&str; 6] = ["read", "edit", "apply", "search", "outline", "tokens"];

/// What the server tells the client about itself at `initialize`.
pub fn instructions(mode: Mode) -> String {
    format!(
        "patchbay reads and edits files under one root folder. Read a file with `read` (a long file comes back as its outline and the sections that fit, with how to ask for the rest), find lines with `search`, then change them with `edit` ({}). Edits are checked against what you were shown and applied all or nothing; a refused edit writes nothing and shows the current lines to retry with. `apply` takes a whole reply in any edit format (SEARCH/REPLACE blocks, a unified diff, ...).",
        match mode {
            Mode::Hashline | Mode::Any => "by line number and the tag shown before each line",
            Mode::Lines => "by line ranges of the numbered view",
            Mode::StrReplace => "old_str/new_str replacements",
        }
    )
}

pub fn tools(mode: Mode) -> Vec<Tool> {
    vec![
        tool("read", &read_description(mode), read_schema()),
        tool("edit", &edit_description(mode), edit_schema(mode)),
        tool("apply", APPLY, apply_schema()),
        tool("search", &search_description(mode), search_schema()),
        tool("outline", OUTLINE, object(&[("path", PATH)], &["path"])),
        tool("tokens", TOKENS, tokens_schema()),
    ]
}

fn tool(name: &'static str, description: &str, schema: Value) -> Tool {
    let Value::Object(map) = schema else {
        unreachable!("every schema here is an object")
    };
    Tool::new(name, description.to_owned(), Arc::new(map))
}

const PATH: &str = "The file's path relative to the server's root folder (e.g. src/app.py).";

/// An object schema of string properties described by `fields`.
fn object(fields: &[(&str, &str)], required: &[&str]) -> Value {
    let props: Map<String, Value> = fields
        .iter()
        .map(|(k, d)| ((*k).to_owned(), json!({"type": "string", "description": d})))
        .collect();
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// `schema` with the property `name` set to `value`.
fn with(mut schema: Value, name: &str, value: Value) -> Value {
    schema["properties"][name] = value;
    schema
}

fn read_description(mode: Mode) -> String {
    let shape = match mode {
        Mode::Hashline | Mode::Any => "each line as `N:TAG content` (N the line number, TAG a short hash of the line, both needed by `edit`)",
        Mode::Lines => "a `# file: PATH crc32=... lines=N` header, then each line as `N<TAB>content`",
        Mode::StrReplace => "the lines as plain text",
    };
    format!(
        "Read a file, a line range (start/end) or one symbol (a function, class, ... by name), shown as {shape}. A file larger than the read budget comes back as its outline plus the sections most relevant to `task`, with the line ranges left out. Example: {{\"path\": \"src/app.py\", \"symbol\": \"parse_args\"}} or {{\"path\": \"src/app.py\", \"start\": 40, \"end\": 80}}."
    )
}

fn read_schema() -> Value {
    let line = |d: &str| json!({"type": "integer", "minimum": 1, "description": d});
    let s = object(
        &[
            ("path", PATH),
            ("symbol", "A symbol to read: a name (parse_args), a qualified name (App.run) or a line number inside it."),
            ("task", "What you mean to do, in words (e.g. 'fix the timeout in fetch'); for a file over the budget it picks the sections shown."),
        ],
        &["path"],
    );
    let s = with(s, "start", line("First line to show (1-based)."));
    with(s, "end", line("Last line to show (inclusive)."))
}

fn edit_description(mode: Mode) -> String {
    let (how, example) = match mode {
        Mode::Hashline => ("Each edit names lines by number and the TAG `read` showed: `replace` (one `line`+`tag`, or a range as `lines`: \"11:rA3_\\n12:Kq9z\"), `insert_after` (0 is the top), `delete`. A tag that no longer matches is refused as stale_tag with the current lines.",
            r#"{"path": "src/app.py", "edits": [{"op": "replace", "line": 12, "tag": "Kq9z", "new": "    return limit"}, {"op": "insert_after", "line": 20, "tag": "aB3x", "new": "log(x)\nlog(y)"}]}"#),
        Mode::Lines => ("Each edit names a line or range of the numbered view (`lines`: \"10:12\", or `line`: 40) with its `new` text (empty deletes; op insert_after/delete also work); add `crc32` from the view's header to insist the file is unchanged. Lines you were not shown are refused as not_shown; changed lines as stale_tag.",
            r#"{"path": "src/app.py", "edits": [{"lines": "10:12", "new": "def f(x):\n    return x + 1"}, {"op": "delete", "lines": "30:31"}]}"#),
        Mode::StrReplace => ("Each edit replaces `old_str` (which must occur exactly once; add lines around it until it does, or give `line_hint`) with `new_str`; `insert_line` with `new_str` inserts after that line (0 is the top). A file that changed since you read it is refused as file_changed.",
            r#"{"path": "src/app.py", "edits": [{"old_str": "    return 1", "new_str": "    return 2", "line_hint": 12}]}"#),
        Mode::Any => ("Any one kind of edit per call: tagged (`line`+`tag`), line ranges (`lines`), or `old_str`/`new_str` with \"command\": \"str_replace\".",
            r#"{"path": "src/app.py", "edits": [{"op": "replace", "line": 12, "tag": "Kq9z", "new": "    return limit"}]}"#),
    };
    format!("Edit one file; the edits apply all or nothing and are checked against what you were shown, so a refused edit writes nothing and answers with the reason and the current lines. {how} Example: {example}")
}

fn edit_schema(mode: Mode) -> Value {
    let s = |d: &str| json!({"type": "string", "description": d});
    let n = |d: &str| json!({"type": "integer", "minimum": 0, "description": d});
    let item = match mode {
        Mode::Hashline | Mode::Any => json!({"type": "object", "properties": {
            "op": {"type": "string", "enum": ["replace", "insert_after", "delete"], "description": "What to do (default replace)."},
            "line": n("The line number from the read view."),
            "tag": s("The TAG shown before that line."),
            "lines": s("A range instead of line+tag: the view's `N:TAG` prefixes, one per line, e.g. \"11:rA3_\\n12:Kq9z\"."),
            "new": s("The new lines (for replace and insert_after)."),
        }}),
        Mode::Lines => json!({"type": "object", "properties": {
            "op": {"type": "string", "enum": ["replace", "insert_after", "delete"], "description": "What to do (default replace)."},
            "lines": s("A range of the numbered view, e.g. \"10:12\"."),
            "line": n("A single line instead of a range."),
            "new": s("The new lines; empty deletes."),
            "crc32": s("Optional: the file's crc32 from the view's header."),
        }}),
        Mode::StrReplace => json!({"type": "object", "properties": {
            "old_str": s("The exact text to replace; must occur once in the file."),
            "new_str": s("The text to put in its place (missing or empty deletes)."),
            "line_hint": json!({"type": "integer", "minimum": 1, "description": "The 1-based line where old_str starts, to pick one of several occurrences."}),
            "insert_line": n("Instead of old_str: insert new_str after this line (0 is the top)."),
        }}),
    };
    let edits = json!({"type": "array", "minItems": 1, "items": item, "description": "The edits of this file, applied together."});
    with(
        object(&[("path", PATH)], &["path", "edits"]),
        "edits",
        edits,
    )
}

const APPLY: &str = "Apply a whole model reply in any edit format (SEARCH/REPLACE blocks, a unified diff, Codex apply_patch, whole files in fences, hashline or lines JSON, str_replace tool calls), all or nothing, with receipts and feedback. `dry_run` shows the resulting diff without writing. Example: {\"reply\": \"src/app.py\\n<<<<<<< SEARCH\\n    return 1\\n=======\\n    return 2\\n>>>>>>> REPLACE\\n\", \"dry_run\": true}";

fn apply_schema() -> Value {
    let s = object(
        &[
            ("reply", "The reply text holding the edits."),
            ("format", "The reply's format (search-replace, udiff, apply-patch, whole, hashline, lines, tool-call); default auto (detected)."),
            ("path", "The file for edits that name none."),
        ],
        &["reply"],
    );
    with(
        s,
        "dry_run",
        json!({"type": "boolean", "description": "Check and preview only; nothing is written."}),
    )
}

fn search_description(mode: Mode) -> String {
    let shape = match mode {
        Mode::Hashline | Mode::Any => "`N:TAG content` lines, ready for `edit`",
        Mode::Lines => "numbered lines, ready for `edit`",
        Mode::StrReplace => "plain lines under a header giving their line numbers",
    };
    format!("Find the lines that contain a text (plain text, not a regex) in every file under the root or a folder, skipping what .gitignore ignores; hits come as {shape}. Example: {{\"pattern\": \"def parse_args\", \"path\": \"src\"}}")
}

fn search_schema() -> Value {
    let s = object(
        &[
            ("pattern", "The text to look for, on one line."),
            (
                "path",
                "A folder (or file) under the root to search; default the whole root.",
            ),
        ],
        &["pattern"],
    );
    let s = with(
        s,
        "ignore_case",
        json!({"type": "boolean", "description": "Match regardless of case."}),
    );
    with(
        s,
        "max_results",
        json!({"type": "integer", "minimum": 1, "maximum": 500, "description": "The most matching lines to show (default 50)."}),
    )
}

const OUTLINE: &str = "List a file's symbols (functions, classes, methods, ...) with their line ranges, to read or edit one without reading the whole file. Example: {\"path\": \"src/app.py\"}";

const TOKENS: &str = "Count the tokens of a text or a file for a model family (o200k_base, cl100k_base, or an estimate: llama, qwen, mistral, gemma, claude, ...). Example: {\"path\": \"src/app.py\", \"tokenizer\": \"llama\"}";

fn tokens_schema() -> Value {
    object(
        &[
            ("text", "A text to count."),
            ("path", "A file to count."),
            (
                "tokenizer",
                "The tokenizer or model family; default the server's.",
            ),
        ],
        &[],
    )
}
