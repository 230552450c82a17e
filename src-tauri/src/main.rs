//! The desktop shell: registers commands that forward to lens-core and nothing else.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    lens_app::run()
}
