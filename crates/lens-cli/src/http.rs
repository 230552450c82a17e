//! A small HTTP/1.1 server for `lens serve`, with limits: a request head of at most 16 KiB and
//! 100 header lines (else 431, and the connection is closed), 10 s to send the head, at most
//! MAX_CONNECTIONS connections at once (more get 503 at once, no thread each), one request per
//! connection (`Connection: close`), bodies read only up to their `Content-Length`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Largest request head (request line and headers).
pub const MAX_HEAD: usize = 16 * 1024;
pub const MAX_HEADERS: usize = 100;
/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 64;
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Other,
}

pub struct Request {
    method: Method,
    url: String,
    headers: Vec<(String, String)>,
    body: std::io::Take<BufReader<TcpStream>>,
    stream: TcpStream,
}

impl Request {
    pub fn method(&self) -> Method {
        self.method
    }
    pub fn url(&self) -> &str {
        &self.url
    }
    /// A header's value (names compare case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    /// The body, up to its `Content-Length`.
    pub fn body(&mut self) -> &mut impl Read {
        &mut self.body
    }
    pub fn respond(mut self, r: Response) -> std::io::Result<()> {
        r.write_to(&mut self.stream)
    }
}

enum Body {
    Bytes(Vec<u8>),
    /// sent with chunked transfer encoding as it is read
    Stream(Box<dyn Read + Send>),
}

pub struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Body,
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

impl Response {
    pub fn from_data(data: Vec<u8>) -> Response {
        Response { status: 200, headers: Vec::new(), body: Body::Bytes(data) }
    }
    pub fn stream(status: u16, reader: Box<dyn Read + Send>) -> Response {
        Response { status, headers: Vec::new(), body: Body::Stream(reader) }
    }
    pub fn with_status_code(mut self, status: u16) -> Response {
        self.status = status;
        self
    }
    pub fn with_header(mut self, k: &str, v: &str) -> Response {
        self.headers.push((k.to_string(), v.to_string()));
        self
    }

    fn write_to(self, w: &mut TcpStream) -> std::io::Result<()> {
        let mut head = format!("HTTP/1.1 {} {}\r\nConnection: close\r\n", self.status, reason(self.status));
        for (k, v) in &self.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        match self.body {
            Body::Bytes(b) => {
                head.push_str(&format!("Content-Length: {}\r\n\r\n", b.len()));
                w.write_all(head.as_bytes())?;
                w.write_all(&b)?;
            }
            Body::Stream(mut r) => {
                head.push_str("Transfer-Encoding: chunked\r\n\r\n");
                w.write_all(head.as_bytes())?;
                let mut buf = vec![0u8; 16 * 1024];
                loop {
                    let n = r.read(&mut buf)?;
                    if n == 0 {
                        break;
                    }
                    w.write_all(format!("{n:x}\r\n").as_bytes())?;
                    w.write_all(&buf[..n])?;
                    w.write_all(b"\r\n")?;
                    w.flush()?;
                }
                w.write_all(b"0\r\n\r\n")?;
            }
        }
        w.flush()
    }
}

/// Why a request head was refused: (status, message).
type Refusal = (u16, &'static str);

/// A parsed request head: method, target, headers, and the reader positioned at the body.
type Head = (Method, String, Vec<(String, String)>, BufReader<TcpStream>);

fn read_head(stream: &TcpStream) -> Result<Head, Refusal> {
    let mut r = BufReader::new(stream.try_clone().map_err(|_| (500, "connection error"))?);
    let mut total = 0usize;
    let mut line = Vec::new();
    let mut read_line = |r: &mut BufReader<TcpStream>, line: &mut Vec<u8>| -> Result<(), Refusal> {
        line.clear();
        // never more than what is left of the head budget, so an endless line cannot grow
        let budget = (MAX_HEAD - total.min(MAX_HEAD)) as u64 + 1;
        let n = r.by_ref().take(budget).read_until(b'\n', line).map_err(|_| (408, "the request was not sent in time"))?;
        total += n;
        if total > MAX_HEAD {
            return Err((431, "the request head is too large"));
        }
        if n == 0 || !line.ends_with(b"\n") {
            return Err((400, "the request ended early"));
        }
        while line.last().is_some_and(|c| *c == b'\n' || *c == b'\r') {
            line.pop();
        }
        Ok(())
    };
    read_line(&mut r, &mut line)?;
    let req_line = String::from_utf8_lossy(&line).to_string();
    let mut parts = req_line.split(' ');
    let (m, url, ver) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if !ver.starts_with("HTTP/1.") || !url.starts_with('/') {
        return Err((400, "not an HTTP/1.x request"));
    }
    let method = match m {
        "GET" => Method::Get,
        "POST" => Method::Post,
        _ => Method::Other,
    };
    let mut headers = Vec::new();
    loop {
        read_line(&mut r, &mut line)?;
        if line.is_empty() {
            break;
        }
        if headers.len() >= MAX_HEADERS {
            return Err((431, "too many header lines"));
        }
        let l = String::from_utf8_lossy(&line).to_string();
        let (k, v) = l.split_once(':').ok_or((400, "a malformed header line"))?;
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok((method, url.to_string(), headers, r))
}

fn refuse(mut s: TcpStream, status: u16, message: &str) {
    let body = serde_json::to_vec(&serde_json::json!({ "code": if status == 503 { "busy" } else { "bad_input" }, "message": message })).unwrap_or_default();
    let _ = s.set_write_timeout(Some(Duration::from_secs(2)));
    let _ = Response::from_data(body).with_status_code(status).with_header("Content-Type", "application/json").write_to(&mut s);
}

/// Accept connections on `listener` and hand each request to `handle` on its own thread.
pub fn serve(listener: TcpListener, handle: Arc<dyn Fn(Request) + Send + Sync>) {
    let active = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        let Ok(stream) = conn else { continue };
        if active.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
            active.fetch_sub(1, Ordering::AcqRel);
            refuse(stream, 503, "too many connections at once");
            continue;
        }
        let (active, handle) = (active.clone(), handle.clone());
        std::thread::spawn(move || {
            let _ = stream.set_read_timeout(Some(HEAD_TIMEOUT));
            match read_head(&stream) {
                Ok((method, url, headers, reader)) => {
                    let len = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-length")).and_then(|(_, v)| v.parse::<u64>().ok());
                    let chunked = headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && !v.eq_ignore_ascii_case("identity"));
                    if chunked {
                        refuse(stream, 411, "send the body with a Content-Length");
                    } else {
                        // a body has the rest of a generous time to arrive (uploads)
                        let _ = stream.set_read_timeout(Some(Duration::from_secs(300)));
                        handle(Request { method, url, headers, body: reader.take(len.unwrap_or(0)), stream });
                    }
                }
                Err((status, message)) => refuse(stream, status, message),
            }
            active.fetch_sub(1, Ordering::AcqRel);
        });
    }
}
