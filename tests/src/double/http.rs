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
        500 => "Internal Server Error",
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
    /// Waited after each byte of a streamed response (slow bytes).
    pub byte_pause: std::time::Duration,
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
            byte_pause: std::time::Duration::ZERO,
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
        self.head(ctype)?;
        for p in parts {
            let b = p.as_bytes();
            let mid = b.len() / 2;
            for half in [&b[..mid], &b[mid..]] {
                self.chunk(half)?;
            }
            if !self.pause.is_zero() {
                std::thread::sleep(self.pause);
            }
        }
        if cut {
            return self.close();
        }
        self.last()
    }

    /// The head of a chunked 200 response.
    pub fn head(&mut self, ctype: &str) -> io::Result<()> {
        let mut head = "HTTP/1.1 200 OK\r\n".to_string();
        for (n, v) in &self.cors {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str(&format!(
            "Content-Type: {ctype}\r\nTransfer-Encoding: chunked\r\n{}\r\n",
            connection(self.keep)
        ));
        self.conn.write_all(head.as_bytes())
    }

    /// One HTTP chunk (none for no bytes), flushed; with `byte_pause`, a
    /// byte at a time.
    pub fn chunk(&mut self, b: &[u8]) -> io::Result<()> {
        if b.is_empty() {
            return Ok(());
        }
        let framed = [format!("{:x}\r\n", b.len()).as_bytes(), b, b"\r\n"].concat();
        if self.byte_pause.is_zero() {
            self.conn.write_all(&framed)?;
            return self.conn.flush();
        }
        for byte in framed {
            self.conn.write_all(&[byte])?;
            self.conn.flush()?;
            std::thread::sleep(self.byte_pause);
        }
        Ok(())
    }

    /// The last chunk: the body ends.
    pub fn last(&mut self) -> io::Result<()> {
        self.conn.write_all(b"0\r\n\r\n")?;
        self.conn.flush()
    }

    /// Drops the connection in the middle of the body.
    pub fn close(&mut self) -> io::Result<()> {
        self.conn.shutdown(std::net::Shutdown::Both)
    }

    /// Sends nothing more until the client closes or `deadline` passes.
    pub fn wait_for_close(&mut self, deadline: std::time::Instant) -> io::Result<()> {
        self.conn
            .set_read_timeout(Some(std::time::Duration::from_millis(100)))?;
        let mut buf = [0u8; 256];
        while std::time::Instant::now() < deadline {
            match self.conn.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => break,
            }
        }
        self.close()
    }
}
