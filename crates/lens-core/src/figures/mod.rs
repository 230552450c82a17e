//! What a filing's figures are, read without a library: the metric catalogue (names, units,
//! formulas; [`catalogue`]), statement tables from a page's lines and boxes ([`table`]), the
//! formula language ([`formula`]), exact ratios ([`ratio`]), the verifier's rules ([`rules`]) and a row as an answer shows it, each figure with its period ([`shown`]). Pure: the question reader, the
//! library's table cache and the worked answers (the `calc` module) build on them.

pub mod catalogue;
pub mod formula;
pub mod ratio;
pub mod rules;
pub mod shown;
pub mod table;
