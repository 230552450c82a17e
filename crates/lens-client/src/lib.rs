//! A client of a team server (`lens serve --team`): the desktop app's window works on the
//! team's library through it when Settings names one. Every call is the command the local
//! service answers (`lens_api::dispatch`'s names), sent as the browser UI sends it: a POST of
//! JSON with the user's token, answers and errors as JSON (`{code, message}`), an ask's events
//! as newline-delimited JSON, a page as PNG, a PDF as the upload's body. TLS is checked against
//! the certificate the user gives (a firm's own or self-signed one), else the public roots.

use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Where the team's library is served and who this user is: kept in the local library folder
/// (`team.json`) while connected.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Team {
    /// `https://host:port` (or `http://127.0.0.1:port` for a server on this machine).
    pub url: String,
    /// The token `lens user add` printed for this user.
    pub token: String,
    /// A PEM file of the certificate (or its CA) the server presents, when it is not signed by
    /// a public root (a firm's own CA, a self-signed certificate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate: Option<PathBuf>,
}

/// The file a team's settings are kept in, in the local library folder.
pub const TEAM_FILE: &str = "team.json";

impl Team {
    /// The team library this window was last connected to (`<library>/team.json`), if any.
    pub fn load(library: &Path) -> Option<Team> {
        serde_json::from_str(&std::fs::read_to_string(library.join(TEAM_FILE)).ok()?).ok()
    }

    /// Kept for the next start, readable by this user only (it holds the token).
    pub fn save(&self, library: &Path) -> Result<()> {
        let path = library.join(TEAM_FILE);
        let io = |e: std::io::Error| failure("io", format!("{}: {e}", path.display()));
        std::fs::create_dir_all(library).map_err(io)?;
        let mut f = std::fs::File::create(&path).map_err(io)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            f.set_permissions(std::fs::Permissions::from_mode(0o600)).map_err(io)?;
        }
        std::io::Write::write_all(&mut f, serde_json::to_string_pretty(self).unwrap_or_default().as_bytes()).map_err(io)
    }

    /// Forgotten: the window works on its own library again.
    pub fn forget(library: &Path) {
        let _ = std::fs::remove_file(library.join(TEAM_FILE));
    }
}

/// A call that failed: the server's own `{code, message}`, or `offline` (not reachable),
/// `tls` (its certificate not trusted) or `bad_input` (a wrong address or file).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub code: String,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for Failure {}

fn failure(code: &str, message: impl Into<String>) -> Failure {
    Failure { code: code.into(), message: message.into() }
}

pub type Result<T> = std::result::Result<T, Failure>;

/// How long a call may wait for the server to answer (an ask on a slow model streams, so its
/// text keeps coming well inside this).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(300);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A team server, reached with one user's token.
pub struct Remote {
    base: String,
    token: String,
    agent: ureq::Agent,
}

impl Remote {
    /// The server of `team`, checked: it answers `app_info` with this token (a wrong address,
    /// an untrusted certificate, a refused token each fail here with their own message).
    pub fn connect(team: &Team) -> Result<Remote> {
        let base = team.url.trim().trim_end_matches('/').to_string();
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(failure("bad_input", format!("the team server's address must start with https:// (got `{}`)", team.url)));
        }
        if base.starts_with("http://") && !is_loopback(&base) {
            return Err(failure("bad_input", "a team server beyond this machine is reached over https:// only (the token would cross the network in clear)"));
        }
        if team.token.trim().is_empty() {
            return Err(failure("bad_input", "a token is needed: the one `lens user add` printed for you"));
        }
        let mut tls = ureq::tls::TlsConfig::builder();
        if let Some(pem) = &team.certificate {
            tls = tls.root_certs(ureq::tls::RootCerts::Specific(Arc::new(certificates(pem)?)));
        }
        let config = ureq::Agent::config_builder()
            .tls_config(tls.build())
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .timeout_recv_response(Some(ANSWER_TIMEOUT))
            .http_status_as_error(false)
            .build();
        let remote = Remote { base, token: team.token.trim().to_string(), agent: config.into() };
        remote.call("app_info", &serde_json::json!({}))?;
        Ok(remote)
    }

    /// The server's address.
    pub fn url(&self) -> &str {
        &self.base
    }

    /// A command of the service with its JSON arguments: its JSON answer.
    pub fn call(&self, cmd: &str, args: &serde_json::Value) -> Result<serde_json::Value> {
        let r = self.post(&format!("/api/{cmd}")).header("content-type", "application/json").send(args.to_string()).map_err(|e| self.unreachable(e))?;
        answer_json(r)
    }

    /// A streamed command (`ask_stream`): `on_event` gets each event as it arrives (returning
    /// false stops reading, and the server's answerer with it); the `done` event's response is
    /// returned.
    pub fn stream(&self, cmd: &str, args: &serde_json::Value, on_event: &mut dyn FnMut(&serde_json::Value) -> bool) -> Result<serde_json::Value> {
        let r = self.post(&format!("/api/{cmd}")).header("content-type", "application/json").send(args.to_string()).map_err(|e| self.unreachable(e))?;
        if !r.status().is_success() {
            return answer_json(r);
        }
        let mut done = None;
        for line in BufReader::new(r.into_body().into_reader()).lines() {
            let line = line.map_err(|e| failure("offline", format!("the team server stopped answering: {e}")))?;
            if line.trim().is_empty() {
                continue;
            }
            let e: serde_json::Value =
                serde_json::from_str(&line).map_err(|e| failure("internal", format!("the team server sent an event that is not JSON: {e}")))?;
            match e.get("event").and_then(|v| v.as_str()) {
                Some("error") => return Err(server_failure(&e)),
                Some("done") => done = e.get("response").cloned(),
                _ => {}
            }
            if !on_event(&e) {
                return Err(failure("cancelled", "stopped"));
            }
        }
        done.ok_or_else(|| failure("internal", "the answer stream ended early"))
    }

    /// A file the service makes (`workpaper`: `{name, mime, base64}`): its name and bytes.
    pub fn file(&self, cmd: &str, args: &serde_json::Value) -> Result<(String, Vec<u8>)> {
        let v = self.call(cmd, args)?;
        let name = v.get("name").and_then(|n| n.as_str()).unwrap_or("file").to_string();
        let bytes = unbase64(v.get("base64").and_then(|b| b.as_str()).unwrap_or_default())
            .ok_or_else(|| failure("internal", format!("`{cmd}` sent a file that is not base64")))?;
        Ok((name, bytes))
    }

    /// A page rendered with `boxes` (`[{l, b, r, t}]` in PDF points) drawn on it, as PNG.
    pub fn page_png(&self, doc: &str, page: u32, boxes: &serde_json::Value, dpi: f32) -> Result<Vec<u8>> {
        let r = self
            .agent
            .get(&format!("{}/api/page.png", self.base))
            .header("x-lens-token", &self.token)
            .query("doc", doc)
            .query("page", page.to_string())
            .query("dpi", dpi.to_string())
            .query("boxes", boxes.to_string())
            .call()
            .map_err(|e| self.unreachable(e))?;
        if !r.status().is_success() {
            return Err(answer_json(r).err().unwrap_or_else(|| failure("internal", "the page could not be drawn")));
        }
        let mut png = Vec::new();
        r.into_body().into_reader().read_to_end(&mut png).map_err(|e| failure("offline", format!("the page did not arrive whole: {e}")))?;
        Ok(png)
    }

    /// A PDF on this machine sent to the team's library (queued for ingest there).
    pub fn upload(&self, path: &Path) -> Result<serde_json::Value> {
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let bytes = std::fs::read(path).map_err(|e| failure("bad_input", format!("{}: {e}", path.display())))?;
        let r = self
            .agent
            .post(&format!("{}/api/upload", self.base))
            .header("x-lens-token", &self.token)
            .query("name", &name)
            .send(&bytes[..])
            .map_err(|e| self.unreachable(e))?;
        answer_json(r)
    }

    fn post(&self, path: &str) -> ureq::RequestBuilder<ureq::typestate::WithBody> {
        self.agent.post(&format!("{}{path}", self.base)).header("x-lens-token", &self.token)
    }

    /// A transport error in the user's words: the certificate, else the network.
    fn unreachable(&self, e: ureq::Error) -> Failure {
        let text = e.to_string();
        if text.contains("CaUsedAsEndEntity") {
            return failure(
                "tls",
                format!(
                    "the team server at {} presents a CA's certificate as its own, which is refused: make its certificate with `-addext basicConstraints=critical,CA:FALSE` (openssl req -x509 marks it a CA by default), or sign it with the firm's CA",
                    self.base
                ),
            );
        }
        if text.to_lowercase().contains("certificate") || matches!(e, ureq::Error::Tls(_) | ureq::Error::Rustls(_)) {
            return failure(
                "tls",
                format!("the team server at {} presented a certificate this app does not trust ({text}): give its certificate file in Settings", self.base),
            );
        }
        failure("offline", format!("the team server at {} is not reachable: {text}", self.base))
    }
}

fn is_loopback(url: &str) -> bool {
    let host = url.split("://").nth(1).unwrap_or("").split(['/', '?']).next().unwrap_or("");
    let host = host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host);
    matches!(host, "127.0.0.1" | "localhost" | "[::1]")
}

/// Standard base64 (padding optional, white space ignored) to bytes, by the `base64` crate;
/// `None` on any other character.
fn unbase64(text: &str) -> Option<Vec<u8>> {
    use base64::engine::{general_purpose::GeneralPurpose, DecodePaddingMode, GeneralPurposeConfig};
    use base64::Engine;
    const LENIENT: GeneralPurpose =
        GeneralPurpose::new(&base64::alphabet::STANDARD, GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent));
    let digits: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    LENIENT.decode(digits).ok()
}

/// The certificates of a PEM file.
fn certificates(path: &Path) -> Result<Vec<ureq::tls::Certificate<'static>>> {
    let pem = std::fs::read(path).map_err(|e| failure("bad_input", format!("the certificate file {}: {e}", path.display())))?;
    let certs: Vec<_> = ureq::tls::parse_pem(&pem)
        .filter_map(|item| match item {
            Ok(ureq::tls::PemItem::Certificate(c)) => Some(c.to_owned()),
            _ => None,
        })
        .collect();
    if certs.is_empty() {
        return Err(failure("bad_input", format!("{} holds no PEM certificate", path.display())));
    }
    Ok(certs)
}

/// A JSON answer, or the server's `{code, message}` for an error status.
fn answer_json(r: ureq::http::Response<ureq::Body>) -> Result<serde_json::Value> {
    let status = r.status();
    let mut text = String::new();
    r.into_body().into_reader().read_to_string(&mut text).map_err(|e| failure("offline", format!("the answer did not arrive whole: {e}")))?;
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|_| serde_json::json!({ "code": "internal", "message": text }));
    if status.is_success() {
        Ok(v)
    } else {
        Err(server_failure(&v))
    }
}

fn server_failure(v: &serde_json::Value) -> Failure {
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or_default().to_string();
    Failure { code: if s("code").is_empty() { "internal".into() } else { s("code") }, message: s("message") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_address_token_or_certificate_file_is_refused_before_any_call() {
        let t = |url: &str, token: &str| Remote::connect(&Team { url: url.into(), token: token.into(), certificate: None }).err().unwrap();
        assert_eq!(t("lens.firm.local:8443", "x").code, "bad_input");
        let clear = t("http://10.0.0.5:8443", "x");
        assert!(clear.message.contains("https://"), "{clear:?}");
        assert_eq!(t("https://lens.firm.local", " ").code, "bad_input");
        let dir = tempfile::tempdir().unwrap();
        let not_pem = dir.path().join("cert.pem");
        std::fs::write(&not_pem, "hello").unwrap();
        let e = Remote::connect(&Team { url: "https://127.0.0.1:1".into(), token: "x".into(), certificate: Some(not_pem) }).err().unwrap();
        assert!(e.message.contains("no PEM certificate"), "{e:?}");
        // nothing listening: offline, with the address
        let e = t("http://127.0.0.1:9", "x");
        assert_eq!(e.code, "offline", "{e:?}");
        assert!(e.message.contains("127.0.0.1:9"));
    }

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(unbase64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(unbase64("aGVsbG8").unwrap(), b"hello");
        assert_eq!(unbase64("aGk=").unwrap(), b"hi");
        assert_eq!(unbase64("").unwrap(), b"");
        assert_eq!(unbase64("/+8=").unwrap(), [0xff, 0xef]);
        assert!(unbase64("a$==").is_none());
    }

    #[test]
    fn the_team_is_kept_for_this_user_only_and_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Team::load(dir.path()), None);
        let t = Team { url: "https://lens.firm.local:8443".into(), token: "secret".into(), certificate: None };
        t.save(dir.path()).unwrap();
        assert_eq!(Team::load(dir.path()), Some(t));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(dir.path().join(TEAM_FILE)).unwrap().permissions().mode() & 0o777, 0o600);
        }
        Team::forget(dir.path());
        assert_eq!(Team::load(dir.path()), None);
    }

    #[test]
    fn loopback_addresses_are_told_apart() {
        assert!(is_loopback("http://127.0.0.1:8080"));
        assert!(is_loopback("http://localhost:1/x"));
        assert!(!is_loopback("http://10.1.2.3:8080"));
    }
}
