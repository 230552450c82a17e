//! The layer rule of ARCHITECTURE.md, checked against the code: every `crate::X` in a module of
//! `lens-core` (its tests and comments aside) names a module on a lower floor of the list in
//! the ```layers block, or one in the same folder; every module is on the list.

use std::collections::HashMap;
use std::path::Path;

/// Floors by module: `name` for `src/name.rs`, `dir/` for everything under `src/dir/`.
fn parse_layers(architecture: &str) -> HashMap<String, usize> {
    let block = architecture.split("```layers\n").nth(1).and_then(|b| b.split("```").next()).expect("ARCHITECTURE.md has a ```layers block");
    let mut floors = HashMap::new();
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let (n, mods) = line.split_once(':').unwrap_or_else(|| panic!("layer line without 'N:': {line}"));
        let n: usize = n.trim().parse().unwrap_or_else(|_| panic!("layer number: {line}"));
        for m in mods.split_whitespace() {
            assert!(floors.insert(m.to_string(), n).is_none(), "{m} is listed twice");
        }
    }
    floors
}

/// The module a `src`-relative path belongs to.
fn module_of(rel: &str) -> String {
    match rel.split_once('/') {
        Some((dir, _)) => format!("{dir}/"),
        None => rel.trim_end_matches(".rs").to_string(),
    }
}

/// The modules a file's code names as `crate::X` (comments and `#[cfg(test)]` onwards left out).
fn imports(code: &str, folders: &[String]) -> Vec<String> {
    let code = code.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = Vec::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            // `$crate::` inside a macro is the crate root, not an import
            let real = i == 0 || !rest[..i].ends_with('$');
            rest = &rest[i + "crate::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if real && name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
                out.push(if folders.contains(&name) { format!("{name}/") } else { name });
            }
        }
    }
    out
}

/// Every breach of the rule: `(file, what it imports, why)`.
fn breaches(files: &[(String, String)], floors: &HashMap<String, usize>) -> Vec<String> {
    let folders: Vec<String> = files.iter().filter_map(|(rel, _)| rel.split_once('/').map(|(d, _)| d.to_string())).collect();
    let mut out = Vec::new();
    for (rel, code) in files {
        if rel == "lib.rs" {
            continue;
        }
        let from = module_of(rel);
        let Some(&f) = floors.get(&from) else {
            out.push(format!("{rel}: module {from} is not on the layer list in ARCHITECTURE.md (put it on the floor above the highest it imports)"));
            continue;
        };
        for to in imports(code, &folders) {
            if to == from {
                continue;
            }
            match floors.get(&to) {
                Some(&t) if t < f => {}
                Some(&t) => out.push(format!("{rel} (floor {f}) imports crate::{} (floor {t}): not a lower floor", to.trim_end_matches('/'))),
                None => {}
            }
        }
    }
    out
}

fn sources(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

#[test]
fn lens_core_imports_only_downwards_as_architecture_md_lists() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let arch = std::fs::read_to_string(crate_dir.join("../../ARCHITECTURE.md")).unwrap();
    let floors = parse_layers(&arch);
    let mut files = Vec::new();
    sources(&crate_dir.join("src"), &crate_dir.join("src"), &mut files);
    assert!(files.len() > 30, "read the sources ({} files)", files.len());
    let b = breaches(&files, &floors);
    assert!(b.is_empty(), "imports against the layer list:\n  {}", b.join("\n  "));
    // and the list names no module that is gone
    let modules: std::collections::HashSet<String> = files.iter().map(|(r, _)| module_of(r)).collect();
    let stale: Vec<_> = floors.keys().filter(|m| !modules.contains(*m)).collect();
    assert!(stale.is_empty(), "the layer list names modules that do not exist: {stale:?}");
}

#[test]
fn the_check_catches_an_upward_import_an_unlisted_module_and_skips_comments() {
    let floors = parse_layers("x\n```layers\n1: error\n2: store figures/\n3: library\n```\n");
    let files = vec![
        ("error.rs".to_string(), "// see crate::library\npub struct E;".to_string()),
        ("store.rs".to_string(), "use crate::error::E;\nuse crate::library::Library;\n".to_string()),
        ("figures/table.rs".to_string(), "use crate::figures::ratio;\nmacro_rules! m { () => { $crate::library::X } }".to_string()),
        ("library.rs".to_string(), "use crate::store::Store;\n#[cfg(test)]\nmod tests { use crate::library::Library; }".to_string()),
        ("newbie.rs".to_string(), "use crate::error::E;".to_string()),
    ];
    let b = breaches(&files, &floors);
    assert_eq!(b.len(), 2, "{b:?}");
    assert!(b[0].starts_with("store.rs (floor 2) imports crate::library (floor 3)"), "{b:?}");
    assert!(b[1].contains("newbie.rs: module newbie is not on the layer list"), "{b:?}");
}
