//! `patchbay mcp`: the read and edit tools as a Model Context Protocol
//! server over stdio, on the official Rust SDK (`rmcp`).
//!
//! One process serves one session: what the model was shown (the `lines`
//! snapshot, the CRC of each file as shown) lives in [`Session`] for as
//! long as the client keeps the pipe open. Writes go through
//! [`crate::apply::transact`], the layer `patchbay apply` uses: the root
//! is a jail, commits are journalled and locked, so two servers (or a
//! server and `patchbay apply`) on one root apply one after the other.
//!
//! Errors follow the protocol: arguments that do not fit a tool's schema
//! (or an unknown tool) are JSON-RPC errors (`-32602`); a refused edit, a
//! missing file or a path outside the root is a tool result with
//! `isError: true` and the engine's feedback, which the model reads.

mod edit;
mod read;
mod schema;
mod search;
mod view;

use crate::args::McpArgs;
use crate::fsio::Root;
use crate::Failure;
use patchbay::budget::tokens::Tokenizer;
use patchbay::{FormatName, SeenLines, TagOptions};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Which view `read` and `search` show and which edits `edit` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `N:TAG content` lines; edits by line and tag (format `hashline`).
    Hashline,
    /// Numbered lines with the file's CRC-32; edits by range (`lines`).
    Lines,
    /// Plain text; `old_str`/`new_str` edits (`tool-call`).
    StrReplace,
    /// The tagged view; every kind of edit (format `auto`).
    Any,
}

impl Mode {
    fn parse(name: &str) -> Result<Mode, Failure> {
        Ok(match name {
            "hashline" => Mode::Hashline,
            "lines" => Mode::Lines,
            "str-replace" => Mode::StrReplace,
            "any" => Mode::Any,
            other => return Err(Failure::Usage(format!("unknown --mode {other:?}"))),
        })
    }

    /// The engine format the `edit` tool's edits are written in.
    fn format(self) -> FormatName {
        match self {
            Mode::Hashline => FormatName::Hashline,
            Mode::Lines => FormatName::Lines,
            Mode::StrReplace => FormatName::ToolCall,
            Mode::Any => FormatName::Auto,
        }
    }
}

/// What the server was started with.
pub struct Settings {
    pub root: Root,
    pub mode: Mode,
    pub tags: TagOptions,
    /// Tokens a `read` may return before it falls back to the planner.
    pub budget: usize,
    pub tokenizer: Tokenizer,
}

/// What this session showed the model.
#[derive(Default)]
pub struct Session {
    /// Every line shown in the `lines` view (`not_shown` guards the rest).
    pub seen: SeenLines,
    /// The CRC-32 of each file as last shown: a `str-replace` edit of a
    /// file that changed since is `file_changed`.
    pub shown: BTreeMap<String, u32>,
    /// The line ranges of each file in `seen`, in the file's current
    /// numbering: an edit moves them with the lines (see `edit::remap`).
    pub ranges: BTreeMap<String, Vec<(usize, usize)>>,
}

/// The MCP server: settings and one session.
pub struct Server {
    settings: Settings,
    session: Mutex<Session>,
}

/// A tool's answer: text for the model, `Err` when the call was refused
/// (`isError: true`).
pub type Answer = Result<String, String>;

/// `patchbay mcp`: serves until the client closes stdin.
pub fn run(a: &McpArgs) -> Result<i32, Failure> {
    let root = Root::open(&a.root).map_err(Failure::Io)?;
    let tokenizer = Tokenizer::parse(&a.tokenizer).map_err(|e| Failure::Usage(e.to_string()))?;
    let server = Server {
        settings: Settings {
            root,
            mode: Mode::parse(&a.mode)?,
            tags: a.tags.options(),
            budget: a.budget,
            tokenizer,
        },
        session: Mutex::new(Session::default()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Io(format!("cannot start the MCP runtime: {e}")))?;
    runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Failure::Io(format!("MCP session did not start: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| Failure::Io(format!("MCP session ended abnormally: {e}")))?;
        Ok(0)
    })
}

impl Server {
    /// Runs one tool; a panic in a tool is answered as an internal error
    /// and the server keeps serving.
    fn call(&self, name: &str, args: serde_json::Value) -> Result<Answer, ErrorData> {
        let run = std::panic::AssertUnwindSafe(|| self.dispatch(name, args));
        std::panic::catch_unwind(run).unwrap_or_else(|_| {
            Err(ErrorData::internal_error(
                format!("the {name} tool failed unexpectedly; the server is still running"),
                None,
            ))
        })
    }

    fn dispatch(&self, name: &str, args: serde_json::Value) -> Result<Answer, ErrorData> {
        let s = &self.settings;
        match name {
            "read" => Ok(read::read(s, &self.session, &arguments(args)?)),
            "outline" => Ok(read::outline(s, &arguments(args)?)),
            "tokens" => read::tokens(s, &arguments(args)?),
            "search" => Ok(search::search(s, &self.session, &arguments(args)?)),
            "edit" => Ok(edit::edit(s, &self.session, arguments(args)?)),
            "apply" => edit::apply(s, &self.session, &arguments(args)?),
            other => Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {other:?}; the tools are {}",
                    schema::NAMES.join(", ")
                ),
                None,
            )),
        }
    }
}

/// A tool's arguments, or the protocol error that says what is wrong.
fn arguments<T: DeserializeOwned>(args: serde_json::Value) -> Result<T, ErrorData> {
    serde_json::from_value(args)
        .map_err(|e| ErrorData::invalid_params(format!("invalid arguments: {e}"), None))
}

/// The session, even if a panicking tool poisoned its lock (what it holds
/// is only ever replaced whole, so it stays consistent).
fn lock(session: &Mutex<Session>) -> std::sync::MutexGuard<'_, Session> {
    session
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("patchbay", env!("CARGO_PKG_VERSION")))
            .with_instructions(schema::instructions(self.settings.mode))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(schema::tools(
            self.settings.mode,
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let result = match self.call(&request.name, args)? {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(text) => CallToolResult::error(vec![ContentBlock::text(text)]),
        };
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ErrorCode;
    use serde_json::{json, Value};

    /// xorshift64: the same arguments on every run, no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// The keys each tool takes (and one it does not).
    fn keys(tool: &str) -> &'static [&'static str] {
        match tool {
            "read" => &["path", "start", "end", "symbol", "task", "bogus"],
            "edit" => &["path", "edits", "edits", "bogus"],
            "apply" => &["reply", "format", "path", "dry_run", "bogus"],
            "search" => &["pattern", "path", "ignore_case", "max_results", "bogus"],
            "outline" => &["path", "bogus"],
            _ => &["text", "path", "tokenizer", "bogus"],
        }
    }

    const EDIT_KEYS: [&str; 10] = [
        "op",
        "line",
        "tag",
        "lines",
        "new",
        "old_str",
        "new_str",
        "line_hint",
        "insert_line",
        "command",
    ];

    fn pick<T: Clone>(r: &mut Rng, from: &[T]) -> T {
        from[r.below(from.len())].clone()
    }

    /// A value for `key`: mostly of its type (with hostile values), one in
    /// five anything at all.
    fn field(r: &mut Rng, key: &str) -> Value {
        if r.below(5) == 0 {
            return value(r, 1);
        }
        match key {
            "path" => json!(pick(
                r,
                &[
                    "a.py",
                    "../x",
                    "/etc/passwd",
                    "",
                    "sub/../a.py",
                    "no.py",
                    "."
                ]
            )),
            "start" | "end" | "max_results" | "line" | "line_hint" | "insert_line" => {
                json!(pick(r, &[0i64, 1, 2, 3, 100, -1, i64::MAX]))
            }
            "dry_run" | "ignore_case" => json!(r.below(2) == 0),
            "edits" => Value::Array(
                (0..r.below(3))
                    .map(|_| {
                        Value::Object(
                            (0..1 + r.below(4))
                                .map(|_| {
                                    let k = pick(r, &EDIT_KEYS);
                                    (k.to_owned(), field(r, k))
                                })
                                .collect(),
                        )
                    })
                    .collect(),
            ),
            _ => json!(pick(
                r,
                &[
                    "",
                    "def f():",
                    "    return 1",
                    "return",
                    "1:AAAA",
                    "2:zzzz\n3:yyyy",
                    "hashline",
                    "search-replace",
                    "replace",
                    "delete",
                    "str_replace",
                    "f",
                    "\0"
                ]
            )),
        }
    }

    /// A JSON value of any shape, to depth `depth`.
    fn value(r: &mut Rng, depth: usize) -> Value {
        let atoms = [
            json!(null),
            json!(true),
            json!(0),
            json!(-1),
            json!(u64::MAX),
            json!(1.5),
            json!(""),
            json!("a.py"),
            json!("../x"),
            json!("a\0b"),
            json!("x".repeat(3000)),
        ];
        match r.below(if depth > 0 { 4 } else { 2 }) {
            0 | 1 => pick(r, &atoms),
            2 => Value::Array((0..r.below(3)).map(|_| value(r, depth - 1)).collect()),
            _ => Value::Object(
                (0..r.below(4))
                    .map(|k| (format!("k{k}"), value(r, depth - 1)))
                    .collect(),
            ),
        }
    }

    #[test]
    fn random_arguments_never_panic_and_never_escape_the_root() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("root")).unwrap();
        std::fs::write(dir.path().join("root/a.py"), "def f():\n    return 1\n").unwrap();
        std::fs::write(dir.path().join("x"), "outside\n").unwrap();
        let server = Server {
            settings: Settings {
                root: Root::open(&dir.path().join("root")).unwrap(),
                mode: Mode::Any,
                tags: TagOptions::default(),
                budget: 200,
                tokenizer: Tokenizer::default(),
            },
            session: Mutex::new(Session::default()),
        };
        let tools = [
            "read", "edit", "apply", "search", "outline", "tokens", "zzz",
        ];
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let mut ran = 0;
        for _ in 0..20_000 {
            let tool = tools[r.below(tools.len())];
            // Mostly an object of the tool's own keys, so that many calls
            // reach the tool; the rest anything at all.
            let args = match r.below(6) {
                0 => value(&mut r, 2),
                _ => {
                    let mut args = serde_json::Map::new();
                    for &k in keys(tool) {
                        if r.below(3) > 0 {
                            args.insert(k.to_owned(), field(&mut r, k));
                        }
                    }
                    Value::Object(args)
                }
            };
            match server.call(tool, args.clone()) {
                Ok(_) => ran += 1,
                Err(e) => assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{tool} {args}: {e:?}"),
            }
        }
        // The arguments are not all refused at the door.
        assert!(ran > 1000, "only {ran} calls reached a tool");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("x")).unwrap(),
            "outside\n"
        );
    }
}
