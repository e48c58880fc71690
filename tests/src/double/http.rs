//! Just enough HTTP/1.1 for the double: bodies by `Content-Length`,
//! streamed responses in chunked transfer encoding like Ollama's. A
//! response says `Connection: close`, or, when the script keeps
//! connections alive, advertises keep-alive as llama-server does
//! (`Keep-Alive: timeout=5, max=100`).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;

pub struct Request {
    pub method: String,
    pub path: String,
    headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Largest body the double reads (a chat with a 5,000-line file fits).
const MAX_BODY: usize = 64 << 20;

pub fn read_request(conn: &mut TcpStream) -> io::Result<Option<Request>> {
    let mut r = BufReader::new(conn.try_clone()?);
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Ok(None);
    };
    let (method, path) = (
        method.to_owned(),
        target.split('?').next().unwrap_or("").to_owned(),
    );
    let mut headers = vec![];
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((n, v)) = line.split_once(':') {
            headers.push((n.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let len = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0)
        .min(MAX_BODY);
    let mut body = vec![0; len];
    r.read_exact(&mut body)?;
    Ok(Some(Request {
        method,
        path,
        headers,
        body,
    }))
}

/// The connection headers of a response.
fn connection(keep: bool) -> &'static str {
    if keep {
        "Connection: keep-alive\r\nKeep-Alive: timeout=5, max=100\r\n"
    } else {
        "Connection: close\r\n"
    }
}

/// A plain response with a body and extra headers; `keep` keeps the
/// connection open for another request.
pub fn respond(
    conn: &mut TcpStream,
    status: u16,
    extra: &[(String, String)],
    ctype: &str,
    body: &[u8],
    keep: bool,
) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (n, v) in extra {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    if !ctype.is_empty() {
        head.push_str(&format!("Content-Type: {ctype}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\n{}\r\n",
        body.len(),
        connection(keep)
    ));
    conn.write_all(head.as_bytes())?;
    conn.write_all(body)?;
    conn.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        _ => "Status",
    }
}

/// Responses of an allowed request: CORS headers when it had an origin.
pub struct Writer {
    conn: TcpStream,
    cors: Vec<(String, String)>,
    /// Waited after each streamed line (a slow model, for tests that stop it).
    pub pause: std::time::Duration,
    /// Advertise keep-alive instead of closing after the response.
    pub keep: bool,
}

impl Writer {
    pub fn new(conn: TcpStream, origin: Option<String>) -> Writer {
        let cors = origin
            .map(|o| {
                vec![
                    ("Access-Control-Allow-Origin".into(), o),
                    ("Vary".into(), "Origin".into()),
                ]
            })
            .unwrap_or_default();
        Writer {
            conn,
            cors,
            pause: std::time::Duration::ZERO,
            keep: false,
        }
    }

    pub fn preflight(&mut self) -> io::Result<()> {
        let mut h = self.cors.clone();
        h.push((
            "Access-Control-Allow-Methods".into(),
            "GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS".into(),
        ));
        h.push((
            "Access-Control-Allow-Headers".into(),
            "Authorization,Content-Type,User-Agent,Accept,X-Requested-With".into(),
        ));
        h.push(("Access-Control-Max-Age".into(), "43200".into()));
        respond(&mut self.conn, 204, &h, "", b"", self.keep)
    }

    pub fn json(&mut self, status: u16, v: &serde_json::Value) -> io::Result<()> {
        let body = serde_json::to_vec(v).unwrap_or_default();
        respond(
            &mut self.conn,
            status,
            &self.cors,
            "application/json; charset=utf-8",
            &body,
            self.keep,
        )
    }

    pub fn text(&mut self, status: u16, t: &str) -> io::Result<()> {
        respond(
            &mut self.conn,
            status,
            &self.cors,
            "text/plain; charset=utf-8",
            t.as_bytes(),
            self.keep,
        )
    }

    /// NDJSON lines, each sent as two HTTP chunks split at its middle byte
    /// (inside a UTF-8 character, as can happen on a real network), with a
    /// flush after each. `cut` drops the connection without the last chunk.
    pub fn ndjson(&mut self, lines: &[String], cut: bool) -> io::Result<()> {
        self.stream(
            "application/x-ndjson",
            lines.iter().map(|l| format!("{l}\n")),
            cut,
        )
    }

    /// Server-sent events: each `data:` event and a last `[DONE]`.
    pub fn sse(&mut self, events: &[String]) -> io::Result<()> {
        let (data, cut) = match events.last().map(String::as_str) {
            Some("<cut>") => (&events[..events.len() - 1], true),
            _ => (events, false),
        };
        self.stream(
            "text/event-stream",
            data.iter().map(|e| format!("data: {e}\n\n")),
            cut,
        )
    }

    fn stream(
        &mut self,
        ctype: &str,
        parts: impl Iterator<Item = String>,
        cut: bool,
    ) -> io::Result<()> {
        let mut head = "HTTP/1.1 200 OK\r\n".to_string();
        for (n, v) in &self.cors {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str(&format!(
            "Content-Type: {ctype}\r\nTransfer-Encoding: chunked\r\n{}\r\n",
            connection(self.keep)
        ));
        self.conn.write_all(head.as_bytes())?;
        for p in parts {
            let b = p.as_bytes();
            let mid = b.len() / 2;
            for half in [&b[..mid], &b[mid..]] {
                if !half.is_empty() {
                    self.conn
                        .write_all(format!("{:x}\r\n", half.len()).as_bytes())?;
                    self.conn.write_all(half)?;
                    self.conn.write_all(b"\r\n")?;
                    self.conn.flush()?;
                }
            }
            if !self.pause.is_zero() {
                std::thread::sleep(self.pause);
            }
        }
        if cut {
            return self.conn.shutdown(std::net::Shutdown::Both);
        }
        self.conn.write_all(b"0\r\n\r\n")?;
        self.conn.flush()
    }
}
