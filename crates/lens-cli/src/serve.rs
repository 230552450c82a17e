//! `lens serve`: the desktop UI and its API over HTTP, for browsers and browser tests.
//! Bound to 127.0.0.1 only; every API request must carry the random token printed at start
//! (header `x-lens-token`; `?token=` only for GETs such as page images), name this server in
//! `Host`, and come from no other origin. Static UI files are compiled into the binary. The HTTP
//! layer itself (limits on heads, connections, bodies) is `http.rs`.

use crate::http::{Method, Request, Response};
use anyhow::{Context, Result};
use lens_api::{Api, AskArgs, PageImageArgs};
use lens_core::LensError;
use std::io::Read;
use std::sync::Arc;

/// Every file in `ui/` and the icon, by path (`build.rs` lists them).
const UI: &[(&str, &str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/ui_assets.rs"));

/// Largest upload accepted over HTTP.
const MAX_UPLOAD: usize = 512 * 1024 * 1024;
/// Largest JSON request body.
const MAX_BODY: usize = 1 << 20;
/// Uploads buffered at once (each up to MAX_UPLOAD); more wait for a 503 to retry.
const MAX_UPLOADS: usize = 2;

static UPLOADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Compare without an early exit, so timing tells nothing about the token.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The request is for this server by name: `Host` must be the loopback address or `localhost`
/// with our port (a page on another site that a DNS rebinding points here carries its own host).
fn host_ok(req: &Request, port: u16) -> bool {
    let host = req.header("host").map(str::to_ascii_lowercase);
    host.is_some_and(|h| [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")].contains(&h))
}

/// A state-changing request from a page of another origin is refused (browsers send `Origin`).
fn origin_ok(req: &Request, port: u16) -> bool {
    match req.header("origin").map(str::to_ascii_lowercase) {
        None => true,
        Some(o) => [format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}"), format!("http://[::1]:{port}")].contains(&o),
    }
}

/// A JSON body: at most MAX_BODY bytes of UTF-8; else 413 or 400 with a message.
fn json_body(req: &mut Request) -> std::result::Result<serde_json::Value, Response> {
    let mut body = Vec::new();
    if let Err(e) = req.body().take(MAX_BODY as u64 + 1).read_to_end(&mut body) {
        return Err(error_response(&LensError::BadInput(format!("the request body could not be read: {e}"))));
    }
    if body.len() > MAX_BODY {
        return Err(json_response(
            413,
            &serde_json::json!({ "code": "bad_input", "message": format!("the request body is larger than {} KiB", MAX_BODY >> 10) }),
        ));
    }
    let text = String::from_utf8(body).map_err(|_| error_response(&LensError::BadInput("the request body is not UTF-8 JSON".into())))?;
    if text.trim().is_empty() {
        return Ok(serde_json::json!({}));
    }
    serde_json::from_str(&text).map_err(|e| error_response(&LensError::BadInput(format!("the request body is not JSON: {e}"))))
}

fn token() -> String {
    let mut b = [0u8; 16];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        let _ = f.read_exact(&mut b);
    }
    if b.iter().all(|x| *x == 0) {
        // no /dev/urandom: time and pid, still unguessable enough for a loopback session
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
        b.copy_from_slice(&(t ^ ((std::process::id() as u128) << 64)).to_le_bytes());
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn json_response(status: u16, v: &serde_json::Value) -> Response {
    Response::from_data(serde_json::to_vec(v).unwrap()).with_status_code(status).with_header("Content-Type", "application/json")
}

fn error_response(e: &LensError) -> Response {
    let status = match e.code() {
        "bad_input" | "not_pdf" | "pdf_empty" | "pdf_encrypted" | "pdf_corrupt" | "pdf_no_pages" | "pdf_too_large" => 400,
        "unknown_document" | "unknown_page" | "not_found" => 404,
        _ => 500,
    };
    json_response(status, &serde_json::json!({ "code": e.code(), "message": e.to_string() }))
}

fn query_params(url: &str) -> Vec<(String, String)> {
    let q = url.split_once('?').map(|x| x.1).unwrap_or("");
    q.split('&')
        .filter(|s| !s.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("zz"), 16) {
                Ok(v) => {
                    out.push(v);
                    i += 2;
                }
                Err(_) => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).to_string()
}

/// Bytes from a channel, as a `Read` for a chunked response; ends when the sender is dropped.
struct ChannelReader {
    rx: std::sync::mpsc::Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos >= self.buf.len() {
            match self.rx.recv() {
                Ok(b) => {
                    self.buf = b;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn handle(api: &Arc<Api>, secret: &str, port: u16, mut req: Request) {
    if !host_ok(&req, port) {
        let _ = req.respond(json_response(
            403,
            &serde_json::json!({ "code": "unauthorized", "message": "wrong Host header: use http://127.0.0.1 or http://localhost with this port" }),
        ));
        return;
    }
    let url = req.url().to_string();
    let path = url.split('?').next().unwrap_or("/").to_string();
    let params = query_params(&url);
    let param = |k: &str| params.iter().find(|(pk, _)| pk == k).map(|(_, v)| v.clone());
    // the printed URL's token is exchanged for an HttpOnly, SameSite=Strict cookie, and the
    // address bar loses it (as Jupyter does)
    let cookie_token = req.header("cookie").and_then(|c| c.split(';').find_map(|kv| kv.trim().strip_prefix("lens_token=").map(str::to_string)));
    if path == "/" && param("token").is_some_and(|t| same_secret(&t, secret)) {
        let resp = Response::from_data(Vec::new())
            .with_status_code(302)
            .with_header("Location", "/")
            .with_header("Set-Cookie", &format!("lens_token={secret}; HttpOnly; SameSite=Strict; Path=/"))
            .with_header("Cache-Control", "no-store");
        let _ = req.respond(resp);
        return;
    }
    if !path.starts_with("/api/") {
        let resp = match UI.iter().find(|(p, _, _)| *p == path) {
            Some((_, ct, body)) => Response::from_data(body.to_vec())
                .with_header("Content-Type", ct)
                .with_header(
                    "Content-Security-Policy",
                    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'",
                )
                .with_header("X-Content-Type-Options", "nosniff"),
            None => json_response(404, &serde_json::json!({ "code": "not_found", "message": format!("no such page {path}") })),
        };
        let _ = req.respond(resp);
        return;
    }
    // the token: a header for commands; in the URL only for GETs (page images in <img src>)
    let header_token = req.header("x-lens-token").map(str::to_string);
    let given = if req.method() == Method::Get { header_token.or(cookie_token).or_else(|| param("token")) } else { header_token.or(cookie_token) };
    if !given.as_deref().is_some_and(|g| same_secret(g, secret)) {
        let _ = req.respond(json_response(
            401,
            &serde_json::json!({ "code": "unauthorized", "message": "missing or wrong token: open the URL `lens serve` printed" }),
        ));
        return;
    }
    if req.method() != Method::Get && !origin_ok(&req, port) {
        let _ = req.respond(json_response(403, &serde_json::json!({ "code": "unauthorized", "message": "requests from another origin are refused" })));
        return;
    }
    let cmd = path.trim_start_matches("/api/").to_string();
    let resp = match (req.method(), cmd.as_str()) {
        (Method::Get, "page.png") => {
            // doc, page, dpi and the boxes to draw (a JSON array, as the ask returned them)
            let args = serde_json::json!({
                "doc": param("doc"),
                "page": param("page").and_then(|p| p.parse::<u32>().ok()),
                "dpi": param("dpi").and_then(|d| d.parse::<f32>().ok()).unwrap_or(110.0),
                "boxes": param("boxes").map(|b| serde_json::from_str(&b).unwrap_or(serde_json::Value::Null)).unwrap_or(serde_json::json!([])),
            });
            let png = serde_json::from_value::<PageImageArgs>(args)
                .map_err(|e| LensError::BadInput(format!("page.png needs doc, page, and boxes as a JSON array: {e}")))
                .and_then(|a| api.page_png(&a.page_ref(), a.dpi, &a.boxes));
            match png {
                Ok(png) => Response::from_data(png).with_header("Content-Type", "image/png"),
                Err(e) => error_response(&e),
            }
        }
        (Method::Post, "upload") if UPLOADS.fetch_add(1, std::sync::atomic::Ordering::AcqRel) >= MAX_UPLOADS => {
            UPLOADS.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
            json_response(503, &serde_json::json!({ "code": "busy", "message": format!("{MAX_UPLOADS} uploads are running: try again when they are done") }))
        }
        (Method::Post, "upload") => {
            // the slot taken in the guard above is given back when this arm ends
            struct Slot;
            impl Drop for Slot {
                fn drop(&mut self) {
                    UPLOADS.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
                }
            }
            let _slot = Slot;
            let name = param("name").unwrap_or_default();
            let mut body = Vec::new();
            let r = req.body().take(MAX_UPLOAD as u64 + 1).read_to_end(&mut body);
            match r {
                Err(e) => error_response(&LensError::BadInput(format!("upload failed: {e}"))),
                Ok(_) if body.len() > MAX_UPLOAD => error_response(&LensError::BadInput(format!("{name}: larger than {} MiB", MAX_UPLOAD >> 20))),
                Ok(_) => match api.upload(&name, &body) {
                    Ok(v) => json_response(200, &serde_json::to_value(v).expect("job state serialises")),
                    Err(e) => error_response(&e),
                },
            }
        }
        (Method::Post, "ask_stream") => {
            // newline-delimited JSON events, sent as they happen (chunked)
            let args = match json_body(&mut req) {
                Ok(v) => serde_json::from_value::<AskArgs>(v).map_err(|e| LensError::BadInput(format!("ask_stream: {e}"))),
                Err(resp) => {
                    let _ = req.respond(resp);
                    return;
                }
            };
            let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
            let api2 = api.clone();
            std::thread::spawn(move || {
                // false once the client has gone: the answerer stops
                let send = |mut line: Vec<u8>| {
                    line.push(b'\n');
                    tx.send(line).is_ok()
                };
                let r = args.and_then(|a| api2.ask_stream(&a, &mut |e| send(serde_json::to_vec(&e).unwrap_or_default())));
                if let Err(e) = r {
                    send(serde_json::to_vec(&serde_json::json!({ "event": "error", "code": e.code(), "message": e.to_string() })).unwrap_or_default());
                }
            });
            let reader = ChannelReader { rx, buf: Vec::new(), pos: 0 };
            let resp = Response::stream(200, Box::new(reader)).with_header("Content-Type", "application/x-ndjson").with_header("Cache-Control", "no-store");
            let _ = req.respond(resp);
            return;
        }
        (Method::Post, _) => match json_body(&mut req) {
            Err(resp) => resp,
            Ok(args) => match lens_api::dispatch(api, &cmd, args) {
                Ok(v) => json_response(200, &v),
                Err(e) => error_response(&e),
            },
        },
        _ => json_response(405, &serde_json::json!({ "code": "bad_input", "message": "use POST for API commands" })),
    };
    let _ = req.respond(resp);
}

/// A bound server, not yet answering.
pub struct Served {
    listener: std::net::TcpListener,
    pub api: Arc<Api>,
    pub secret: String,
    pub port: u16,
}

/// Listen on 127.0.0.1:`port` (0: any free port) for the library at `library`.
pub fn bind(library: std::path::PathBuf, port: u16) -> Result<Served> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let addr = listener.local_addr().context("listening address")?;
    anyhow::ensure!(addr.ip().is_loopback(), "refusing to serve on a non-loopback address");
    Ok(Served { listener, api: Api::new(library), secret: token(), port: addr.port() })
}

pub fn run(library: std::path::PathBuf, port: u16) -> Result<()> {
    let s = bind(library, port)?;
    println!("10-K Lens serving {} at http://127.0.0.1:{}/?token={}", s.api.library_dir().display(), s.port, s.secret);
    use std::io::Write;
    std::io::stdout().flush().ok();
    // follow the library's watched folders while serving
    if let Err(e) = s.api.follow_watched(Arc::new(|e| eprintln!("watch: {}", serde_json::to_string(&e).unwrap_or_default()))) {
        eprintln!("watched folders not followed: {e}");
    }
    s.serve();
    Ok(())
}

impl Served {
    /// Answer requests until the process ends (limits: see `http.rs`).
    pub fn serve(self) {
        let (api, secret, port) = (self.api, Arc::new(self.secret), self.port);
        crate::http::serve(self.listener, Arc::new(move |req| handle(&api, &secret, port, req)));
    }
}

#[cfg(test)]
mod tests {
    use super::UI;

    #[test]
    fn every_ui_file_is_served_with_its_type() {
        let ui = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui");
        for f in std::fs::read_dir(ui).unwrap().flatten() {
            let name = format!("/{}", f.file_name().to_string_lossy());
            let served = UI.iter().find(|(p, _, _)| *p == name).unwrap_or_else(|| panic!("{name} is not served"));
            assert_eq!(served.2, std::fs::read(f.path()).unwrap().as_slice(), "{name}: the bytes served are the file's");
        }
        let kind = |p: &str| UI.iter().find(|(q, _, _)| *q == p).map(|x| x.1);
        assert_eq!(kind("/"), Some("text/html; charset=utf-8"));
        assert_eq!(kind("/app.js"), Some("text/javascript; charset=utf-8"));
        assert_eq!(kind("/favicon.ico"), Some("image/png"));
    }
}
