//! Helpers for the corpus tests.
