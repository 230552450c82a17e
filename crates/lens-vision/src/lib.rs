//! 10-K Lens vision retrieval: pages as multivectors (one per image patch), queries as one
//! vector per token, scored by MaxSim (late interaction, as ColPali).
//!
//! * [`maxsim`]: the score, with SIMD kernels chosen at run time;
//! * [`index`]: the per-document multivector files (f16, memory-mapped);
//! * [`pool`]: k-means pooling of a page's vectors (fewer vectors, nearly the same ranking).

pub mod encoder;
pub mod index;
pub mod kernels;
pub mod library;
pub mod maxsim;
pub mod maxsim_ops;
pub mod model;
pub mod pool;
pub mod preprocess;
