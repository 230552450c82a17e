//! `lens devices`: Devices this build can run models on (cpu, cuda, metal), and why not where it cannot

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    pub json: bool,
}

pub fn run(_cli: &Global, args: Args) -> Result<()> {
    let Args { json } = args;
    let d = lens_llm::device::devices();
    if json {
        println!("{}", serde_json::to_string(&d)?);
    } else {
        for x in &d {
            println!("{:<6} {:<10} {}", x.name, if x.usable { "usable" } else { "not usable" }, x.detail);
        }
        let auto = lens_llm::device::select(lens_llm::DeviceChoice::Auto)?;
        println!("--device auto: {}{}", auto.name, auto.fallback.map(|f| format!(" ({f})")).unwrap_or_default());
    }
    Ok(())
}
