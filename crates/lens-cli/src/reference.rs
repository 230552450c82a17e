//! Where the reference implementations' scripts (`scripts/*_reference.py`) are: beside the
//! sources this binary was built from, else under the working directory.

use std::path::{Path, PathBuf};

/// A reference script of the repository's `scripts/`: where this binary was built, else under
/// the working directory (a binary carried to another machine, run from the repository's copy
/// there).
pub fn script(name: &str) -> PathBuf {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts").join(name);
    if built.is_file() {
        return built;
    }
    let here = Path::new("scripts").join(name);
    if here.is_file() {
        return here;
    }
    built
}
