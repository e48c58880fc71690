//! Fitted weights of the estimator, one row per model family, in
//! [`super::pieces::FEATURE_NAMES`] order. Written by
//! `tests/tools/fit_estimator.py` from calibration data (see
//! `tests/tokens/README.md`); do not edit by hand. Cost: a table.

use super::pieces::N_FEATURES;
use super::Family;

/// Tokens per feature count, per family.
pub fn weights(family: Family) -> &'static [f64; N_FEATURES] {
    match family {
        Family::O200k => &O200K,
        Family::Cl100k => &CL100K,
        Family::Llama3 => &LLAMA3,
        Family::Qwen2 => &QWEN2,
        Family::DeepseekV3 => &DEEPSEEK_V3,
        Family::Gemma => &GEMMA,
    }
}

// BEGIN FITTED (tests/tools/fit_estimator.py --write-rust)
const O200K: [f64; N_FEATURES] = [
    0.92154, 0.00000, 0.02965, 0.10619, 0.16845, 0.06906, 1.10915, 0.00000, 1.07068, 0.59087,
    0.04284, 1.70586, 0.72982, 0.01341, 1.32239, 2.79485, 0.63276, 3.79268, 0.35835, 0.26272,
    0.04325,
];
const CL100K: [f64; N_FEATURES] = [
    0.93642, 0.00000, 0.02620, 0.09025, 0.14782, 0.07968, 1.09803, 0.00700, 1.07259, 0.52306,
    0.05660, 1.65894, 0.66782, 0.01610, 1.61230, 2.77841, 0.98646, 3.16496, 0.27971, 0.29322,
    0.04554,
];
const LLAMA3: [f64; N_FEATURES] = [
    0.93614, 0.00000, 0.02666, 0.08930, 0.14942, 0.07861, 1.09859, 0.00676, 1.07255, 0.52345,
    0.05704, 1.65710, 0.66809, 0.01608, 1.67117, 2.73692, 0.60336, 3.32642, 0.28060, 0.29266,
    0.04392,
];
const QWEN2: [f64; N_FEATURES] = [
    0.93548, 0.00000, 0.02702, 0.08456, 0.12974, 0.08474, 0.07494, 1.02703, 1.08135, 0.51906,
    0.05572, 1.65169, 0.64800, 0.01700, 1.77109, 2.60290, 0.56379, 3.21377, 0.27706, 0.29196,
    0.04537,
];
const DEEPSEEK_V3: [f64; N_FEATURES] = [
    0.90649, 0.00000, 0.04110, 0.13385, 0.50292, 0.09357, 1.00814, 0.04502, 1.11589, 0.77430,
    0.08613, 1.59936, 0.65464, 0.02197, 1.05728, 1.78615, 0.51307, 3.64894, 0.64680, 0.36299,
    0.10293,
];
const GEMMA: [f64; N_FEATURES] = [
    0.96194, 0.00000, 0.01316, 0.09741, 0.21204, 0.03791, 0.00000, 1.03951, 1.17459, 0.51018,
    0.11279, 0.95095, 0.85332, 0.04055, 0.81016, 2.03153, 0.38923, 4.14886, 1.21066, 0.37334,
    0.29901,
];
// END FITTED
