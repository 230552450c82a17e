//! Write the hostile-input set of the hardening tests into a folder, to probe the app by hand:
//! `cargo run -p lens-core --example hostile_corpus -- DIR GOOD.pdf [GOOD.pdf...]`
#[path = "../tests/hostile_gen/mod.rs"]
mod hostile_gen;

fn main() {
    let args: Vec<std::path::PathBuf> = std::env::args_os().skip(1).map(Into::into).collect();
    if args.len() < 2 {
        eprintln!("usage: hostile_corpus DIR GOOD.pdf [GOOD.pdf...]");
        std::process::exit(2);
    }
    let encrypted = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/encrypted.pdf");
    for f in hostile_gen::generate(&args[0], &args[1..], &encrypted) {
        println!("{}", f.display());
    }
}
