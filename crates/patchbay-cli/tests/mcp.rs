//! `patchbay mcp` over raw JSON-RPC on its stdin and stdout: the protocol
//! as any client sends it, without an SDK, so `cargo test` covers the
//! server's answers (scripts/mcp-test.sh drives it with the official
//! Python SDK and the Inspector CLI).

mod common;

use common::Sandbox;
use serde_json::{json, Value};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A running server and the next request id.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    id: u64,
}

impl Server {
    fn start(root: &std::path::Path, mode: &str) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_patchbay"))
            .args(["mcp", "--root"])
            .arg(root)
            .args(["--mode", mode])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut s = Server {
            child,
            stdin,
            stdout,
            id: 0,
        };
        let init = s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "cargo-test", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "patchbay", "{init}");
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, v: &Value) {
        writeln!(self.stdin, "{v}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns the response with its id.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let id = self.id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }

    /// A tool call's `(isError, text)`; panics on a protocol error.
    fn call(&mut self, tool: &str, args: Value) -> (bool, String) {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let result = &r["result"];
        assert!(result.is_object(), "{tool}: {r}");
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        (result["isError"] == true, text)
    }

    /// A tool call that must be a protocol error: its code.
    fn error_code(&mut self, tool: &str, args: Value) -> i64 {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        r["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("{tool}: {r}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tag of `n` in a hashline view.
fn tag_of(view: &str, n: usize) -> String {
    let prefix = format!("{n}:");
    let line = view.lines().find(|l| l.starts_with(&prefix)).unwrap();
    line[prefix.len()..].split(' ').next().unwrap().to_owned()
}

#[test]
fn lists_six_tools_with_object_schemas_and_examples() {
    let sb = Sandbox::new("mcp-list");
    let mut s = Server::start(&sb.dir, "hashline");
    let r = s.request("tools/list", json!({}));
    let tools = r["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["read", "edit", "apply", "search", "outline", "tokens"]
    );
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(
            t["description"].as_str().unwrap().contains("Example"),
            "{t}"
        );
    }
}

#[test]
fn a_hashline_edit_writes_and_a_stale_tag_writes_nothing() {
    let sb = Sandbox::new("mcp-edit");
    sb.write("a.py", "def f(x):\n    return x + 1\n");
    let mut s = Server::start(&sb.dir, "hashline");
    let (err, view) = s.call("read", json!({"path": "a.py"}));
    assert!(!err, "{view}");
    let tag = tag_of(&view, 2);
    let edit =
        json!({"path": "a.py", "edits": [{"line": 2, "tag": tag, "new": "    return x + 2"}]});
    let (err, text) = s.call("edit", edit.clone());
    assert!(!err, "{text}");
    assert_eq!(
        fs::read_to_string(sb.path("a.py")).unwrap(),
        "def f(x):\n    return x + 2\n"
    );
    // The same tag again: line 2 changed, so it is stale.
    let (err, text) = s.call("edit", edit);
    assert!(err && text.contains("stale_tag"), "{text}");
    assert!(text.contains("return x + 2"), "the current line: {text}");
    assert_eq!(
        fs::read_to_string(sb.path("a.py")).unwrap(),
        "def f(x):\n    return x + 2\n"
    );
}

#[test]
fn bad_arguments_are_protocol_errors_and_escapes_are_refused() {
    let sb = Sandbox::new("mcp-errors");
    fs::create_dir(sb.path("root")).unwrap();
    sb.write("outside.txt", "secret\n");
    let mut s = Server::start(&sb.path("root"), "str-replace");
    assert_eq!(s.error_code("read", json!({"path": 1})), -32602);
    assert_eq!(s.error_code("read", json!({"file": "a"})), -32602);
    assert_eq!(s.error_code("nope", json!({})), -32602);
    let (err, text) = s.call("read", json!({"path": "../outside.txt"}));
    assert!(err && text.contains("path_escape"), "{text}");
    let edit = json!({"path": "../outside.txt", "edits": [{"old_str": "secret", "new_str": "x"}]});
    let (err, text) = s.call("edit", edit);
    assert!(err && text.contains("path_escape"), "{text}");
    assert_eq!(
        fs::read_to_string(sb.path("outside.txt")).unwrap(),
        "secret\n"
    );
    // Still serving.
    let r = s.request("tools/list", json!({}));
    assert_eq!(r["result"]["tools"].as_array().unwrap().len(), 6);
}
