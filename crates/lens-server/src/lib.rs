//! `lens serve`: the desktop UI and the `lens-api` service over HTTP, for browsers and browser
//! tests, on axum (hyper on tokio).
//!
//! Bound to 127.0.0.1, or beyond loopback in team mode over TLS (`Options`). Who may call is
//! `guard.rs` (Host, token, Origin) and, in team mode, `lens_api::access`. The limits:
//! - a request head of at most [`MAX_HEAD`] bytes and [`MAX_HEADERS`] lines (hyper answers 431),
//!   sent within [`HEAD_TIMEOUT`] (else the connection is closed; an idle keep-alive connection
//!   too);
//! - at most [`MAX_CONNECTIONS`] connections at once: more get 503 at once;
//! - JSON bodies up to [`MAX_BODY`], uploads up to [`MAX_UPLOAD`] (413 with a message), at most
//!   [`MAX_UPLOADS`] uploads at once (503), a body sent within [`BODY_TIMEOUT`].
//!
//! The service's calls block (SQLite, the models), so each runs on tokio's blocking pool; a
//! streamed answer is sent as newline-delimited JSON as it is written, and stops when the client
//! goes. Static UI files are compiled into the binary (`build.rs`).

mod guard;

use anyhow::{Context, Result};
use axum::body::{Body, Bytes};
use axum::extract::{Path as UrlPath, RawQuery, Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use lens_api::{Api, AskArgs, PageImageArgs};
use lens_core::LensError;
use std::sync::Arc;
use std::time::Duration;

/// Every file in `ui/` and the icon, by path (`build.rs` lists them).
const UI: &[(&str, &str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/ui_assets.rs"));

/// Largest request head (request line and headers).
pub const MAX_HEAD: usize = 16 * 1024;
/// Most header lines in a request.
pub const MAX_HEADERS: usize = 100;
/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 64;
/// Time to send a request head (and the longest an idle connection is kept).
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Time to send a request body (uploads are large).
pub const BODY_TIMEOUT: Duration = Duration::from_secs(300);
/// Largest upload accepted over HTTP.
pub const MAX_UPLOAD: usize = 512 * 1024 * 1024;
/// Largest JSON request body.
pub const MAX_BODY: usize = 1 << 20;
/// Uploads buffered at once (each up to MAX_UPLOAD); more get 503 to retry.
pub const MAX_UPLOADS: usize = 2;
/// Threads for the service's blocking calls at most (asks, ingest, page images).
const BLOCKING_THREADS: usize = 32;

/// What every handler reads.
struct Ctx {
    api: Arc<Api>,
    /// The token printed at start (one-person mode); unused in team mode.
    secret: String,
    /// The names (Host, Origin) this server answers to.
    names: guard::Names,
    /// Team mode: each caller is a user of the library with a role ([`lens_api::access`]).
    team: bool,
    /// Reached over TLS: the token cookie is `Secure` and named `__Host-lens_token`.
    tls: bool,
}

/// Who is calling, as the check found it: a team user's name, or nobody in particular (the one
/// person holding the printed token).
#[derive(Clone, Default)]
struct Caller(Option<String>);

/// A call's JSON arguments with who is calling: a client's own `user` is dropped; in team mode
/// the caller's name goes in `user`, and in `annotator` for the calls that name one.
fn with_caller(mut args: serde_json::Value, call: &str, caller: &Caller) -> serde_json::Value {
    if let Some(o) = args.as_object_mut() {
        o.remove("user");
        if let Some(name) = &caller.0 {
            o.insert("user".into(), name.clone().into());
            if lens_api::access::names_annotator(call) {
                o.insert("annotator".into(), name.clone().into());
            }
        }
    }
    args
}

fn json_response(status: StatusCode, v: &serde_json::Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], serde_json::to_vec(v).unwrap_or_default()).into_response()
}

fn refusal(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    json_response(status, &serde_json::json!({ "code": code, "message": message.into() }))
}

fn error_response(e: &LensError) -> Response {
    let status = match e.code() {
        "bad_input" | "not_pdf" | "pdf_empty" | "pdf_encrypted" | "pdf_corrupt" | "pdf_no_pages" | "pdf_too_large" => StatusCode::BAD_REQUEST,
        "unknown_document" | "unknown_page" | "not_found" => StatusCode::NOT_FOUND,
        // the team database busy or away: the server itself is fine, try again
        "busy" | "database" => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    refusal(status, e.code(), e.to_string())
}

/// Run a blocking call of the service on the blocking pool.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> lens_core::error::Result<T> + Send + 'static) -> lens_core::error::Result<T> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| Err(LensError::BadInput(format!("the call stopped: {e}"))))
}

/// A body of at most `limit` bytes; else 413 (or 400 when it could not be read) with a message.
async fn read_body(body: Body, limit: usize, what: &str) -> std::result::Result<Bytes, Response> {
    use http_body_util::BodyExt;
    match http_body_util::Limited::new(body, limit).collect().await {
        Ok(c) => Ok(c.to_bytes()),
        Err(e) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
            let size = if limit > 1 << 20 { format!("{} MiB", limit >> 20) } else { format!("{} KiB", limit >> 10) };
            Err(refusal(StatusCode::PAYLOAD_TOO_LARGE, "bad_input", format!("{what} is larger than {size}")))
        }
        Err(e) => Err(error_response(&LensError::BadInput(format!("the request body could not be read: {e}")))),
    }
}

/// A JSON body: at most MAX_BODY bytes of UTF-8 (an empty one reads as `{}`).
async fn json_body(body: Body) -> std::result::Result<serde_json::Value, Response> {
    let bytes = read_body(body, MAX_BODY, "the request body").await?;
    let text = std::str::from_utf8(&bytes).map_err(|_| error_response(&LensError::BadInput("the request body is not UTF-8 JSON".into())))?;
    if text.trim().is_empty() {
        return Ok(serde_json::json!({}));
    }
    serde_json::from_str(text).map_err(|e| error_response(&LensError::BadInput(format!("the request body is not JSON: {e}"))))
}

/// A token's team user, if it is one of a user not removed; else the refusal to send.
async fn team_user(cx: &Arc<Ctx>, token: Option<String>) -> std::result::Result<lens_core::users::User, Response> {
    let Some(token) = token else {
        return Err(refusal(StatusCode::UNAUTHORIZED, "unauthorized", "no token: send yours (from `lens user add`) as the x-lens-token header"));
    };
    let api = cx.api.clone();
    match blocking(move || api.with_records_only(|r| r.user_by_token(&token))).await {
        Ok(Some(u)) if u.removed_at.is_none() && !u.expired_at(&lens_core::users::utc_now()) => Ok(u),
        Ok(Some(u)) if u.removed_at.is_none() => Err(refusal(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            format!(
                "the token of `{}` ended {}: ask an admin for a new one (`lens user token {}`)",
                u.name,
                u.token_expires_at.as_deref().unwrap_or("?"),
                u.name
            ),
        )),
        Ok(Some(u)) => {
            Err(refusal(StatusCode::UNAUTHORIZED, "unauthorized", format!("the user `{}` was removed from this library: ask an admin for a new token", u.name)))
        }
        Ok(None) => Err(refusal(StatusCode::UNAUTHORIZED, "unauthorized", "unknown token: ask an admin for yours (`lens user add`)")),
        Err(e) => Err(error_response(&e)),
    }
}

/// The printed URL's (or a team user's) token exchanged for an HttpOnly, SameSite=Strict cookie
/// (`Secure`, `__Host-` over TLS), and the address bar loses it (as Jupyter does).
fn cookie_redirect(token: &str, tls: bool) -> Response {
    (
        StatusCode::FOUND,
        [(header::LOCATION, "/".to_string()), (header::SET_COOKIE, guard::token_cookie(token, tls)), (header::CACHE_CONTROL, "no-store".to_string())],
    )
        .into_response()
}

/// The checks of `guard.rs`, in order: Host; a token in the URL of `/` exchanged for a cookie;
/// static files pass; API calls need the token (in team mode a user's, whose role allows the
/// call; the caller's name then goes with the request) and, unless GET, no foreign Origin.
async fn check(State(cx): State<Arc<Ctx>>, mut req: Request, next: Next) -> Response {
    let h = req.headers();
    if !guard::host_ok(h, &cx.names) {
        return refusal(StatusCode::FORBIDDEN, "unauthorized", "wrong Host header: use http://127.0.0.1 or http://localhost with this port");
    }
    let params = guard::query_params(req.uri().query());
    let query_token = params.iter().find(|(k, _)| k == "token").map(|(_, v)| v.clone());
    let path = req.uri().path().to_string();
    if path == "/" {
        match &query_token {
            // a team user's token: exchanged when it is one, refused with the reason when not
            Some(t) if cx.team => return team_user(&cx, Some(t.clone())).await.map_or_else(|resp| resp, |_| cookie_redirect(t, cx.tls)),
            Some(t) if guard::same_secret(t, &cx.secret) => return cookie_redirect(&cx.secret, cx.tls),
            _ => {}
        }
    }
    let Some(call) = path.strip_prefix("/api/") else {
        return next.run(req).await;
    };
    let is_get = req.method() == Method::GET;
    let token = guard::given_token(h, is_get, query_token.as_deref());
    if cx.team {
        let user = match team_user(&cx, token).await {
            Ok(u) => u,
            Err(resp) => return resp,
        };
        let Some(needed) = lens_api::access::required_role(call) else {
            return refusal(StatusCode::NOT_FOUND, "not_found", format!("no such call `{call}`"));
        };
        if !user.role.allows(needed) {
            return refusal(StatusCode::FORBIDDEN, "forbidden", format!("`{}` is a {}: `{call}` needs the {needed} role", user.name, user.role));
        }
        req.extensions_mut().insert(Caller(Some(user.name)));
    } else if !token.as_deref().is_some_and(|g| guard::same_secret(g, &cx.secret)) {
        return refusal(StatusCode::UNAUTHORIZED, "unauthorized", "missing or wrong token: open the URL `lens serve` printed");
    }
    if !is_get && !guard::origin_ok(req.headers(), &cx.names) {
        return refusal(StatusCode::FORBIDDEN, "unauthorized", "requests from another origin are refused");
    }
    next.run(req).await
}

/// A file of the UI, else 404.
async fn static_file(req: Request) -> Response {
    let path = req.uri().path();
    match UI.iter().find(|(p, _, _)| *p == path) {
        Some((_, ct, body)) => (
            [
                (header::CONTENT_TYPE, *ct),
                (header::CONTENT_SECURITY_POLICY, "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'"),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            ],
            *body,
        )
            .into_response(),
        None => refusal(StatusCode::NOT_FOUND, "not_found", format!("no such page {path}")),
    }
}

/// A command of the service (`lens_api::dispatch`), its JSON arguments in the body.
async fn command(State(cx): State<Arc<Ctx>>, UrlPath(cmd): UrlPath<String>, req: Request) -> Response {
    let caller = req.extensions().get::<Caller>().cloned().unwrap_or_default();
    let args = match json_body(req.into_body()).await {
        Ok(v) => with_caller(v, &cmd, &caller),
        Err(resp) => return resp,
    };
    let api = cx.api.clone();
    let is_info = cmd == "app_info";
    match blocking(move || lens_api::dispatch(&api, &cmd, args)).await {
        Ok(mut v) => {
            // who is asking, for a client's header ("team library … · ana")
            if let (true, Some(name), Some(o)) = (is_info, &caller.0, v.as_object_mut()) {
                o.insert("user".into(), name.clone().into());
            }
            json_response(StatusCode::OK, &v)
        }
        Err(e) => error_response(&e),
    }
}

async fn not_post() -> Response {
    refusal(StatusCode::METHOD_NOT_ALLOWED, "bad_input", "use POST for API commands")
}

/// A rendered page with boxes: doc, page, dpi and the boxes (a JSON array, as the ask returned
/// them) in the query.
async fn page_png(State(cx): State<Arc<Ctx>>, RawQuery(q): RawQuery) -> Response {
    let params = guard::query_params(q.as_deref());
    let param = |k: &str| params.iter().find(|(pk, _)| pk == k).map(|(_, v)| v.clone());
    let args = serde_json::json!({
        "doc": param("doc"),
        "page": param("page").and_then(|p| p.parse::<u32>().ok()),
        "dpi": param("dpi").and_then(|d| d.parse::<f32>().ok()).unwrap_or(110.0),
        "boxes": param("boxes").map(|b| serde_json::from_str(&b).unwrap_or(serde_json::Value::Null)).unwrap_or(serde_json::json!([])),
    });
    let api = cx.api.clone();
    let png = blocking(move || {
        let a = serde_json::from_value::<PageImageArgs>(args)
            .map_err(|e| LensError::BadInput(format!("page.png needs doc, page, and boxes as a JSON array: {e}")))?;
        api.page_png(&a.page_ref(), a.dpi, &a.boxes)
    })
    .await;
    match png {
        Ok(png) => ([(header::CONTENT_TYPE, "image/png")], png).into_response(),
        Err(e) => error_response(&e),
    }
}

/// A PDF sent as the body (`?name=` its file name), queued for ingest.
async fn upload(State(cx): State<Arc<Ctx>>, RawQuery(q): RawQuery, req: Request) -> Response {
    let name = guard::query_params(q.as_deref()).into_iter().find(|(k, _)| k == "name").map(|(_, v)| v).unwrap_or_default();
    let body = match read_body(req.into_body(), MAX_UPLOAD, &name).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    let api = cx.api.clone();
    match blocking(move || api.upload(&name, &body)).await {
        Ok(v) => json_response(StatusCode::OK, &serde_json::to_value(v).unwrap_or_default()),
        Err(e) => error_response(&e),
    }
}

/// An ask whose events (pages, text as written, the answer) are sent as newline-delimited JSON
/// as they happen; when the client goes, the answerer stops.
async fn ask_stream(State(cx): State<Arc<Ctx>>, req: Request) -> Response {
    let caller = req.extensions().get::<Caller>().cloned().unwrap_or_default();
    let args = match json_body(req.into_body()).await {
        Ok(v) => serde_json::from_value::<AskArgs>(with_caller(v, "ask_stream", &caller)).map_err(|e| LensError::BadInput(format!("ask_stream: {e}"))),
        Err(resp) => return resp,
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    let api = cx.api.clone();
    tokio::task::spawn_blocking(move || {
        // false once the client has gone: the answerer stops
        let send = |mut line: Vec<u8>| {
            line.push(b'\n');
            tx.blocking_send(line).is_ok()
        };
        let r = args.and_then(|a| api.ask_stream(&a, &mut |e| send(serde_json::to_vec(&e).unwrap_or_default())));
        if let Err(e) = r {
            send(serde_json::to_vec(&serde_json::json!({ "event": "error", "code": e.code(), "message": e.to_string() })).unwrap_or_default());
        }
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|b| (Ok::<Bytes, std::convert::Infallible>(Bytes::from(b)), rx)) });
    ([(header::CONTENT_TYPE, "application/x-ndjson"), (header::CACHE_CONTROL, "no-store")], Body::from_stream(stream)).into_response()
}

fn router(cx: Arc<Ctx>) -> Router {
    Router::new()
        .route("/api/page.png", get(page_png).fallback(not_post))
        // at most MAX_UPLOADS bodies buffered at once (tower's limit; more are shed with 503)
        .route(
            "/api/upload",
            post(upload)
                .layer(
                    tower::ServiceBuilder::new()
                        .layer(axum::error_handling::HandleErrorLayer::new(|_: tower::BoxError| async {
                            refusal(StatusCode::SERVICE_UNAVAILABLE, "busy", format!("{MAX_UPLOADS} uploads are running: try again when they are done"))
                        }))
                        .load_shed()
                        .concurrency_limit(MAX_UPLOADS),
                )
                .fallback(not_post),
        )
        .route("/api/ask_stream", post(ask_stream).fallback(not_post))
        .route("/api/{cmd}", post(command).fallback(not_post))
        .fallback(static_file)
        .layer(middleware::from_fn_with_state(cx.clone(), check))
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(BODY_TIMEOUT))
        .with_state(cx)
}

/// A bound server, not yet answering.
pub struct Served {
    listener: std::net::TcpListener,
    pub api: Arc<Api>,
    pub secret: String,
    pub port: u16,
    pub team: bool,
    names: guard::Names,
    tls: Option<tokio_rustls::TlsAcceptor>,
    ip: std::net::IpAddr,
    /// With a team database: the filings taken from it into the library, and put in it from
    /// the library, at start.
    pub synced: Option<lens_core::replica::Synced>,
}

impl Served {
    /// The URL the server answers at (`https://` with TLS).
    pub fn url(&self) -> String {
        let host = if self.ip.is_loopback() { "127.0.0.1".to_string() } else { host_of(self.ip) };
        format!("{}://{host}:{}/", if self.tls.is_some() { "https" } else { "http" }, self.port)
    }
}

/// An address as it stands in a URL's host (`[…]` around IPv6).
fn host_of(ip: std::net::IpAddr) -> String {
    if ip.is_ipv6() {
        format!("[{ip}]")
    } else {
        ip.to_string()
    }
}

/// The session's token: the operating system's random source, as a user's token is
/// ([`lens_core::users::new_token`]); no guessable fallback.
fn token() -> Result<String> {
    Ok(lens_core::users::new_token()?)
}

/// Listen on 127.0.0.1:`port` (0: any free port) for the library at `library`.
pub fn bind(library: std::path::PathBuf, port: u16) -> Result<Served> {
    bind_with(library, port, &Options::default())
}

/// How a server is set up beyond its library and port.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Team mode: each caller is one of the users (`lens user add`), with a role.
    pub team: bool,
    /// Keep the log, feedback and users in this PostgreSQL database (`postgres://…`) instead of
    /// the library's SQLite file.
    pub database: Option<String>,
    /// The database's pool, wait and TLS rule (with `database`).
    pub db: lens_pg::DbOptions,
    /// The address to listen on (default 127.0.0.1). Beyond loopback only with `tls` and in
    /// team mode: tokens never cross a network in clear.
    pub listen: Option<std::net::IpAddr>,
    /// TLS: a PEM certificate chain and its PEM private key.
    pub tls: Option<(std::path::PathBuf, std::path::PathBuf)>,
    /// The DNS names clients reach the server by (`--name`, with TLS): Host headers naming
    /// them are accepted beside the listening address.
    pub names: Vec<String>,
}

/// A TLS acceptor from a PEM certificate chain and key, or a message naming the file at fault.
fn tls_acceptor(cert: &std::path::Path, key: &std::path::Path) -> Result<tokio_rustls::TlsAcceptor> {
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|it| it.collect::<std::result::Result<_, _>>())
        .map_err(|e| anyhow::anyhow!("{}: not a PEM certificate chain ({e})", cert.display()))?;
    anyhow::ensure!(!certs.is_empty(), "{}: no certificate in it", cert.display());
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| anyhow::anyhow!("{}: not a PEM private key ({e})", key.display()))?;
    let provider = std::sync::Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let config = tokio_rustls::rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| anyhow::anyhow!("{} and its key do not make a TLS identity: {e}", cert.display()))?;
    Ok(tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config)))
}

/// [`bind`] with `opts`; a database URL is connected to (and its schema brought up) now, so a
/// wrong one is reported before anything is served.
pub fn bind_with(library: std::path::PathBuf, port: u16, opts: &Options) -> Result<Served> {
    let db = match &opts.database {
        Some(url) => Some(Arc::new(lens_pg::PgRecords::connect_with(url, &opts.db)?)),
        None => None,
    };
    // the team's filings: the library folder takes what the database has and it lacks, and the
    // database what the folder has and it lacks, before anything is served
    let synced = match &db {
        Some(pg) => {
            let mut lib = lens_core::Library::open(&library)?;
            Some(lens_core::replica::sync(&mut lib, pg.as_ref())?)
        }
        None => None,
    };
    let records: Option<lens_api::SharedRecords> = db.clone().map(|d| d as lens_api::SharedRecords);
    let filings: Option<lens_api::SharedFilings> = db.map(|d| d as lens_api::SharedFilings);
    let ip = opts.listen.unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST));
    if !ip.is_loopback() {
        anyhow::ensure!(opts.team, "listening on {ip} serves beyond this machine: only in team mode (--team), where every caller has a token of its own");
        anyhow::ensure!(
            opts.tls.is_some(),
            "listening on {ip} serves beyond this machine: give --tls-cert and --tls-key, so tokens never cross the network in clear"
        );
    }
    let tls = match &opts.tls {
        Some((c, k)) => Some(tls_acceptor(c, k)?),
        None => None,
    };
    let listener = std::net::TcpListener::bind((ip, port)).map_err(|e| anyhow::anyhow!("cannot listen on {ip}:{port}: {e}"))?;
    let addr = listener.local_addr().context("listening address")?;
    let beyond = (!ip.is_loopback()).then(|| host_of(ip));
    anyhow::ensure!(opts.names.is_empty() || tls.is_some(), "--name is for a server reached over TLS by that name: give --tls-cert and --tls-key");
    let names = guard::Names::new(addr.port(), beyond.as_deref(), tls.is_some(), &opts.names);
    Ok(Served { listener, api: Api::new_team(library, records, filings), secret: token()?, port: addr.port(), team: opts.team, names, tls, ip, synced })
}

/// Bind, print the URL (with its token, unless in team mode), follow the watched folders, and
/// serve until the process ends.
pub fn run(library: std::path::PathBuf, port: u16, opts: &Options) -> Result<()> {
    let s = bind_with(library, port, opts)?;
    if opts.team {
        let users = s.api.with_records_only(|r| r.users())?;
        let active = users.iter().filter(|u| u.removed_at.is_none()).count();
        anyhow::ensure!(active > 0, "no users in this library ({}): add one first with `lens user add NAME --role admin`", s.api.records_place()?);
        println!(
            "10-K Lens serving {} for {active} team users at {} (open /?token=YOUR_TOKEN); log and users in {}",
            s.api.library_dir().display(),
            s.url(),
            s.api.records_place()?
        );
    } else {
        println!("10-K Lens serving {} at {}?token={}", s.api.library_dir().display(), s.url(), s.secret);
    }
    // (on stderr: whoever reads the address line may stop reading after it)
    if let Some(sy) = &s.synced {
        eprintln!(
            "filings: {} taken from {} into the library, {} put there from the library, {} removed here as removed there; dense vectors of {} taken, of {} put; shared settings {}",
            sy.pulled.len(),
            s.api.records_place()?,
            sy.pushed.len(),
            sy.removed.len(),
            sy.vectors_pulled,
            sy.vectors_pushed,
            sy.settings
        );
    }
    use std::io::Write;
    std::io::stdout().flush().ok();
    if let Err(e) = s.api.follow_watched(Arc::new(|e| eprintln!("watch: {}", serde_json::to_string(&e).unwrap_or_default()))) {
        eprintln!("watched folders not followed: {e}");
    }
    s.serve()
}

/// 503 on a connection over the cap, then close it.
async fn refuse_busy(mut stream: tokio::net::TcpStream) {
    use tokio::io::AsyncWriteExt;
    let body = serde_json::to_vec(&serde_json::json!({ "code": "busy", "message": "too many connections at once" })).unwrap_or_default();
    let head = format!("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", body.len());
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(&body).await?;
        stream.shutdown().await
    })
    .await;
}

impl Served {
    /// Answer requests until the process ends.
    pub fn serve(self) -> Result<()> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .max_blocking_threads(BLOCKING_THREADS)
            .thread_name("lens-serve")
            .build()
            .context("the server's runtime")?;
        let cx = Arc::new(Ctx { api: self.api, secret: self.secret, names: self.names, team: self.team, tls: self.tls.is_some() });
        let tls = self.tls;
        self.listener.set_nonblocking(true).context("listening socket")?;
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(self.listener).context("listening socket")?;
            let app = router(cx);
            let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    // out of file descriptors and the like: wait a moment, do not spin
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let Ok(slot) = slots.clone().try_acquire_owned() else {
                    tokio::spawn(refuse_busy(stream));
                    continue;
                };
                let (app, tls) = (app.clone(), tls.clone());
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                        use tower::ServiceExt;
                        app.clone().oneshot(req.map(Body::new))
                    });
                    let http = || {
                        let mut b = hyper::server::conn::http1::Builder::new();
                        b.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEAD_TIMEOUT).max_buf_size(MAX_HEAD).max_headers(MAX_HEADERS);
                        b
                    };
                    match tls {
                        // the handshake within the head's time, or the connection goes
                        Some(acceptor) => {
                            if let Ok(Ok(s)) = tokio::time::timeout(HEAD_TIMEOUT, acceptor.accept(stream)).await {
                                let _ = http().serve_connection(hyper_util::rt::TokioIo::new(s), service).await;
                            }
                        }
                        None => {
                            let _ = http().serve_connection(hyper_util::rt::TokioIo::new(stream), service).await;
                        }
                    }
                    drop(slot);
                });
            }
        })
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
