//! How the team database is reached: the URL read into a connection configuration, TLS as its
//! `sslmode` says (rustls, with the system's CAs or the one `sslrootcert` names), the timeouts a
//! server needs so that a hung database fails a request instead of stalling it, and the rule
//! that credentials never cross the network in clear unless the admin says so.
//!
//! | `sslmode`     | to this machine (loopback, a socket)   | to another host                          |
//! |---------------|----------------------------------------|------------------------------------------|
//! | (not given)   | no TLS                                 | `require`                                |
//! | `disable`     | no TLS                                 | refused, unless `allow_cleartext`        |
//! | `prefer`      | TLS when the server offers it          | refused, unless `allow_cleartext`        |
//! | `require`     | TLS, the certificate not checked       | the same                                 |
//! | `verify-full` | TLS, the certificate checked against the CAs and the host name | the same |
//! | `verify-ca`   | refused: use `verify-full`             |                                          |

use lens_core::error::{LensError, Result};
use postgres::config::{Host, SslMode};
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres_rustls::MakeRustlsConnect;

/// How a server connects to its team database.
#[derive(Debug, Clone)]
pub struct DbOptions {
    /// Connections kept open at most (each request takes one while it runs).
    pub pool_size: u32,
    /// How long a request waits for a free connection before it is refused as busy.
    pub wait: Duration,
    /// Allow a connection without TLS to a host other than this machine.
    pub allow_cleartext: bool,
}

impl Default for DbOptions {
    fn default() -> Self {
        DbOptions { pool_size: 8, wait: Duration::from_secs(5), allow_cleartext: false }
    }
}

/// Connect timeout when the URL gives none.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A statement running longer is cancelled by the server (unless the URL sets `options`).
pub const STATEMENT_TIMEOUT_MS: u64 = 120_000;

/// The TLS the URL asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tls {
    Off,
    /// TLS when the server offers it (libpq's `prefer`).
    Offered,
    /// TLS, any certificate (libpq's `require`).
    Unchecked,
    /// TLS, the certificate checked against the CAs and the host name.
    Verified,
}

/// A URL read: the driver's configuration, the TLS asked for and the CA file named.
pub struct Target {
    pub config: postgres::Config,
    pub tls: Tls,
    pub root_cert: Option<std::path::PathBuf>,
    /// Every host is this machine (loopback or a Unix socket).
    pub local: bool,
}

/// "host:port/db" of a URL, never its password.
pub fn shown(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |x| x.1);
    let rest = rest.rsplit_once('@').map_or(rest, |x| x.1);
    rest.split('?').next().unwrap_or(rest).to_string()
}

fn is_local(h: &Host) -> bool {
    match h {
        Host::Unix(_) => true,
        Host::Tcp(name) => name == "localhost" || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback()),
    }
}

/// Read `url` (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&sslrootcert=…&…]) under
/// `opts`' rule for clear text; the driver's own parameters (connect_timeout, options, …) pass
/// through, with this module's defaults where the URL sets none.
pub fn target(url: &str, opts: &DbOptions) -> Result<Target> {
    let bad = |why: String| LensError::BadInput(format!("`{}` {why}", shown(url)));
    if !url.starts_with("postgres://") && !url.starts_with("postgresql://") {
        return Err(bad("is not a PostgreSQL URL (postgres://USER@HOST:PORT/DATABASE)".into()));
    }
    let mut parsed = url::Url::parse(url).map_err(|e| bad(format!("is not a URL the app can read ({e})")))?;
    let mut mode = None;
    let mut root_cert = None;
    for (k, v) in parsed.query_pairs() {
        match &*k {
            "sslmode" => mode = Some(v.into_owned()),
            "sslrootcert" => root_cert = Some(std::path::PathBuf::from(v.into_owned())),
            _ => {}
        }
    }
    // the driver reads the other parameters, as written (its decoding is not a form's: "+" stays)
    let rest: Vec<String> = parsed
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty() && !matches!(p.split('=').next(), Some("sslmode" | "sslrootcert")))
        .map(str::to_string)
        .collect();
    let rest = rest.join("&");
    parsed.set_query(if rest.is_empty() { None } else { Some(&rest) });
    let mut config: postgres::Config = parsed.as_str().parse().map_err(|e| bad(format!("cannot be read: {e}")))?;
    let local = !config.get_hosts().is_empty() && config.get_hosts().iter().all(is_local);
    let tls = match mode.as_deref() {
        None => {
            if local {
                Tls::Off
            } else {
                Tls::Unchecked
            }
        }
        Some("disable") => Tls::Off,
        Some("allow" | "prefer") => Tls::Offered,
        Some("require") => Tls::Unchecked,
        Some("verify-full") => Tls::Verified,
        Some("verify-ca") => {
            return Err(bad("asks sslmode=verify-ca, which this app does not offer: use verify-full (the CA and the host name checked) or require".into()))
        }
        Some(other) => return Err(bad(format!("has an unknown sslmode `{other}` (disable, prefer, require or verify-full)"))),
    };
    if matches!(tls, Tls::Off | Tls::Offered) && !local && !opts.allow_cleartext {
        return Err(bad(format!(
            "would send the password and the team's records in clear to another machine (sslmode={}): use sslmode=require or verify-full, or allow it with --db-cleartext",
            mode.as_deref().unwrap_or("disable")
        )));
    }
    if root_cert.is_some() && tls != Tls::Verified {
        return Err(bad("names an sslrootcert, which only sslmode=verify-full uses".into()));
    }
    config.ssl_mode(match tls {
        Tls::Off => SslMode::Disable,
        Tls::Offered => SslMode::Prefer,
        Tls::Unchecked | Tls::Verified => SslMode::Require,
    });
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    // a database that goes away without closing the connection is noticed
    config.keepalives(true).keepalives_idle(Duration::from_secs(30));
    if config.get_options().is_none() {
        config.options(&format!("-c statement_timeout={STATEMENT_TIMEOUT_MS}"));
    }
    Ok(Target { config, tls, root_cert, local })
}

/// The rustls connector for `t`: the CAs of `sslrootcert`, else the system's, for
/// `verify-full`; for `require` and `prefer` a connector that takes any certificate (it still
/// checks the handshake's signatures).
pub fn connector(t: &Target) -> Result<MakeRustlsConnect> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| LensError::Database(format!("TLS setup: {e}")))?;
    let config = if t.tls == Tls::Verified {
        let mut roots = rustls::RootCertStore::empty();
        match &t.root_cert {
            Some(path) => {
                use rustls::pki_types::pem::PemObject;
                let certs: Vec<rustls::pki_types::CertificateDer<'static>> = rustls::pki_types::CertificateDer::pem_file_iter(path)
                    .and_then(|it| it.collect::<std::result::Result<_, _>>())
                    .map_err(|e| LensError::BadInput(format!("sslrootcert {}: not a PEM certificate file ({e})", path.display())))?;
                let (added, _) = roots.add_parsable_certificates(certs);
                if added == 0 {
                    return Err(LensError::BadInput(format!("sslrootcert {}: no CA certificate in it", path.display())));
                }
            }
            None => {
                let found = rustls_native_certs::load_native_certs();
                roots.add_parsable_certificates(found.certs);
                if roots.is_empty() {
                    return Err(LensError::BadInput(
                        "sslmode=verify-full: this machine has no CA certificates to check the database's against; name the CA with sslrootcert=FILE".into(),
                    ));
                }
            }
        }
        builder.with_root_certificates(roots).with_no_client_auth()
    } else {
        builder.dangerous().with_custom_certificate_verifier(Arc::new(AnyCertificate(provider))).with_no_client_auth()
    };
    Ok(MakeRustlsConnect::new(config))
}

/// `require`: the server's certificate is not checked (as libpq's `require`), its handshake
/// signatures are.
#[derive(Debug)]
struct AnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &rustls::pki_types::CertificateDer<'_>,
        _intermediates: &[rustls::pki_types::CertificateDer<'_>],
        _server_name: &rustls::pki_types::ServerName<'_>,
        _ocsp_response: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> std::result::Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> std::result::Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> std::result::Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (URL, allow clear text) -> the TLS used, or the words of the refusal.
    #[test]
    fn a_url_is_read_into_tls_and_timeouts_by_the_table() {
        let cases: &[(&str, bool, std::result::Result<Tls, &str>)] = &[
            ("postgres://lens@127.0.0.1:5432/lens", false, Ok(Tls::Off)),
            ("postgres://lens@localhost/lens", false, Ok(Tls::Off)),
            ("postgres://lens@[::1]:5432/lens", false, Ok(Tls::Off)),
            ("postgres://lens@db.firm.example/lens", false, Ok(Tls::Unchecked)),
            ("postgres://lens@db.firm.example/lens?sslmode=require", false, Ok(Tls::Unchecked)),
            ("postgres://lens@db.firm.example/lens?sslmode=verify-full", false, Ok(Tls::Verified)),
            ("postgres://lens@db.firm.example/lens?sslmode=verify-full&sslrootcert=/etc/ca.pem", false, Ok(Tls::Verified)),
            ("postgres://lens:pw@10.0.0.5/lens?sslmode=disable", false, Err("in clear to another machine (sslmode=disable)")),
            ("postgres://lens@10.0.0.5/lens?sslmode=prefer", false, Err("in clear to another machine (sslmode=prefer)")),
            ("postgres://lens@10.0.0.5/lens?sslmode=disable", true, Ok(Tls::Off)),
            ("postgres://lens@127.0.0.1/lens?sslmode=prefer", false, Ok(Tls::Offered)),
            ("postgres://lens@127.0.0.1/lens?sslmode=require", false, Ok(Tls::Unchecked)),
            ("postgres://lens@db/lens?sslmode=verify-ca", false, Err("use verify-full")),
            ("postgres://lens@db/lens?sslmode=maybe", false, Err("unknown sslmode `maybe`")),
            ("postgres://lens@db/lens?sslmode=require&sslrootcert=/ca.pem", false, Err("only sslmode=verify-full uses")),
            ("mysql://lens@db/lens", false, Err("is not a PostgreSQL URL")),
            ("postgres://lens@db/lens?frobnicate=1", false, Err("cannot be read")),
        ];
        for (url, clear, want) in cases {
            let got = target(url, &DbOptions { allow_cleartext: *clear, ..Default::default() });
            match (want, got) {
                (Ok(tls), Ok(t)) => assert_eq!(t.tls, *tls, "{url}"),
                (Err(words), Err(e)) => {
                    assert!(e.to_string().contains(words), "{url}: {e}");
                    assert!(!e.to_string().contains("pw@"), "{url}: the password is shown: {e}");
                }
                (want, got) => panic!("{url}: wanted {want:?}, got {:?}", got.map(|t| t.tls).map_err(|e| e.to_string())),
            }
        }
    }

    #[test]
    fn the_timeouts_are_set_unless_the_url_sets_its_own() {
        let t = target("postgres://lens@127.0.0.1/lens", &DbOptions::default()).unwrap();
        assert_eq!(t.config.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
        assert_eq!(t.config.get_options(), Some(&*format!("-c statement_timeout={STATEMENT_TIMEOUT_MS}")));
        assert!(t.config.get_keepalives());
        let t = target("postgres://lens@127.0.0.1/lens?connect_timeout=3&options=-c%20statement_timeout%3D5000", &DbOptions::default()).unwrap();
        assert_eq!(t.config.get_connect_timeout(), Some(&Duration::from_secs(3)));
        assert_eq!(t.config.get_options(), Some("-c statement_timeout=5000"));
    }

    #[test]
    fn a_ca_file_that_is_not_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("ca.pem");
        std::fs::write(&f, "not a certificate").unwrap();
        let t = target(&format!("postgres://lens@db/lens?sslmode=verify-full&sslrootcert={}", f.display()), &DbOptions::default()).unwrap();
        let e = connector(&t).err().unwrap();
        assert!(e.to_string().contains("no CA certificate in it") || e.to_string().contains("not a PEM"), "{e}");
        let t = target("postgres://lens@db/lens?sslmode=require", &DbOptions::default()).unwrap();
        assert!(connector(&t).is_ok());
    }
}
