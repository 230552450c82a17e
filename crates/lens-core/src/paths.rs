//! Where things live: the library folder (and the config file that chooses it) and the pdfium
//! shared library. The lowest module: it imports nothing from the rest of the core.

use crate::error::{LensError, Result};
use std::path::{Path, PathBuf};

/// Environment variable naming the library folder (overridden by `--library`).
pub const LIBRARY_ENV: &str = "LENS_LIBRARY";
/// Environment variable naming the folder that holds `libpdfium.so`.
pub const PDFIUM_ENV: &str = "PDFIUM_LIB_DIR";

/// The library folder: explicit choice, else `$LENS_LIBRARY`, else the folder chosen in the
/// app's settings (config file), else the platform data dir (`~/.local/share/10k-lens/library`).
pub fn library_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if let Some(p) = std::env::var_os(LIBRARY_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(p);
    }
    if let Some(p) = configured_library() {
        return p;
    }
    match directories::ProjectDirs::from("", "", "10k-lens") {
        Some(d) => d.data_dir().join("library"),
        None => PathBuf::from(".lens/library"),
    }
}

/// Candidate locations of the pdfium library, most specific first.
pub fn pdfium_candidates() -> Vec<PathBuf> {
    let name = "libpdfium.so";
    let mut out = Vec::new();
    // An explicit setting is the only place looked at, so a wrong one is reported, not masked.
    if let Some(d) = std::env::var_os(PDFIUM_ENV).filter(|v| !v.is_empty()) {
        out.push(PathBuf::from(d).join(name));
        return out;
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            out.push(dir.join(name));
            out.push(dir.join("../lib").join(name));
            // the installed package: /usr/bin/lens-app beside /usr/lib/10-k-lens/
            out.push(dir.join("../lib/10-k-lens").join(name));
            // target/{debug,release}/ inside a checkout: the setup script's place.
            out.push(dir.join("../../.deps/pdfium").join(name));
            out.push(dir.join("../../../.deps/pdfium").join(name));
        }
    }
    // The checkout this binary was built from (scripts/setup puts the library here).
    out.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.deps/pdfium").join(name));
    if let Some(d) = directories::ProjectDirs::from("", "", "10k-lens") {
        out.push(d.data_dir().join("pdfium").join(name));
    }
    out.push(PathBuf::from("/usr/local/lib").join(name));
    out.push(PathBuf::from("/usr/lib").join(name));
    out
}

/// The first pdfium library found, or an error listing every place looked at.
pub fn find_pdfium() -> Result<PathBuf> {
    let candidates = pdfium_candidates();
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| LensError::PdfiumMissing { searched: candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ") })
}

/// The config file holding the chosen library folder.
pub fn config_file() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "10k-lens").map(|d| d.config_dir().join("config.json"))
}

/// The library folder chosen in the config file, if any.
pub fn configured_library() -> Option<PathBuf> {
    let text = std::fs::read_to_string(config_file()?).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("library").and_then(|l| l.as_str()).filter(|s| !s.is_empty()).map(PathBuf::from)
}

/// Choose the library folder for the next start.
pub fn set_configured_library(dir: &str) -> Result<PathBuf> {
    let d = Path::new(dir);
    if !d.is_absolute() || d.components().any(|c| c == std::path::Component::ParentDir) || (d.exists() && !d.is_dir()) {
        return Err(LensError::BadInput(format!("library folder `{dir}` must be an absolute path to a folder, without `..`")));
    }
    let f = config_file().ok_or_else(|| LensError::BadInput("no config folder on this platform".into()))?;
    if let Some(parent) = f.parent() {
        std::fs::create_dir_all(parent).map_err(|e| LensError::io(parent, e))?;
    }
    std::fs::write(&f, serde_json::to_string_pretty(&serde_json::json!({ "library": dir })).unwrap()).map_err(|e| LensError::io(&f, e))?;
    Ok(f)
}

/// A new folder only this user can read (0700, an unpredictable name), removed when dropped.
pub fn private_temp_dir(prefix: &str) -> Result<tempfile::TempDir> {
    let d = tempfile::Builder::new().prefix(prefix).tempdir().map_err(|e| LensError::io(std::env::temp_dir(), e))?;
    restrict(d.path(), 0o700)?;
    Ok(d)
}

/// Set `p`'s permission bits (Unix); the library's folder is 0700, its database 0600.
pub fn restrict(p: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).map_err(|e| LensError::io(p, e))
}

/// Where model weights are looked for by default: `$LENS_MODELS`, else the platform data dir.
pub fn default_models_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("LENS_MODELS").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    directories::ProjectDirs::from("", "", "10k-lens").map(|d| d.data_dir().join("models")).unwrap_or_else(|| PathBuf::from(".lens/models"))
}

/// The Hugging Face hub caches to look in for models: `$HF_HUB_CACHE`, `$HF_HOME/hub`,
/// `~/.cache/huggingface/hub`.
pub fn hf_caches() -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Some(d) = std::env::var_os("HF_HUB_CACHE").filter(|d| !d.is_empty()) {
        v.push(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("HF_HOME").filter(|d| !d.is_empty()) {
        v.push(PathBuf::from(d).join("hub"));
    }
    if let Some(h) = directories::BaseDirs::new() {
        v.push(h.home_dir().join(".cache/huggingface/hub"));
    }
    v.dedup();
    v
}

/// The snapshot folders (`models--ORG--NAME/snapshots/*`) of every repository in the Hugging
/// Face caches whose folder name, lowercased, `repo` accepts: caches in [`hf_caches`] order,
/// repositories and snapshots sorted by name. The one walk of the caches (language models,
/// the vision model).
pub fn hf_snapshots(repo: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for cache in hf_caches() {
        let Ok(rd) = std::fs::read_dir(&cache) else { continue };
        let mut repos: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().map(|n| n.to_string_lossy().to_lowercase()).is_some_and(|n| n.starts_with("models--") && repo(&n)))
            .collect();
        repos.sort();
        for r in repos {
            let Ok(snaps) = std::fs::read_dir(r.join("snapshots")) else { continue };
            let mut snaps: Vec<PathBuf> = snaps.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
            snaps.sort();
            out.extend(snaps);
        }
    }
    out
}

/// The files in `dir` (not below) whose extension is `ext`, sorted (sharded weights in order).
pub fn files_with_extension(dir: &Path, ext: &str) -> crate::error::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| crate::error::LensError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    Ok(files)
}
