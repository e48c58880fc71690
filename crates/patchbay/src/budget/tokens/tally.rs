//! A token count that can be added up: what [`Tokenizer::tally`] measures
//! of a text, kept before the estimator rounds it.
//!
//! An estimate is a rounded weighted sum of piece counts, so the estimates
//! of two texts do not add up to the estimate of both; their piece counts
//! do, when no pre-tokenizer piece spans the cut. Exact counts add up under
//! the same condition, since BPE merges within a piece. [`clean_cut`] says
//! which cuts between lines are such cuts, for every tokenizer here; the
//! budget planner prices an excerpt from the tallies of its parts with it.

use super::pieces::{features, N_FEATURES};
use super::{estimate_counts, Tokenizer};
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// Piece counts (estimator) or a token count (exact vocabulary), signed so
/// that a part can be taken out of a sum again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pieces: [i64; N_FEATURES],
    /// How many of the texts added were non-empty (the estimate of a
    /// non-empty text is at least one token).
    non_empty: i64,
    exact: i64,
}

impl Tally {
    /// `k` times this tally.
    pub fn times(self, k: usize) -> Tally {
        let k = k as i64;
        Tally {
            pieces: self.pieces.map(|c| c * k),
            non_empty: self.non_empty * k,
            exact: self.exact * k,
        }
    }
}

impl Add for Tally {
    type Output = Tally;
    fn add(mut self, o: Tally) -> Tally {
        self += o;
        self
    }
}

impl AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        for (a, b) in self.pieces.iter_mut().zip(o.pieces) {
            *a += b;
        }
        self.non_empty += o.non_empty;
        self.exact += o.exact;
    }
}

impl Sub for Tally {
    type Output = Tally;
    fn sub(mut self, o: Tally) -> Tally {
        self -= o;
        self
    }
}

impl SubAssign for Tally {
    fn sub_assign(&mut self, o: Tally) {
        for (a, b) in self.pieces.iter_mut().zip(o.pieces) {
            *a -= b;
        }
        self.non_empty -= o.non_empty;
        self.exact -= o.exact;
    }
}

impl Tokenizer {
    /// The tally of `text`: `self.total(self.tally(t)) == self.count(t)`.
    pub fn tally(&self, text: &str) -> Tally {
        if self.is_exact() {
            return Tally {
                exact: self.count(text) as i64,
                ..Tally::default()
            };
        }
        Tally {
            pieces: features(text).array().map(i64::from),
            non_empty: i64::from(!text.is_empty()),
            exact: 0,
        }
    }

    /// The token count of a sum of tallies: the count of the texts joined,
    /// when every cut between them is a [`clean_cut`].
    pub fn total(&self, t: &Tally) -> usize {
        if self.is_exact() {
            return t.exact.max(0) as usize;
        }
        let counts = t.pieces.map(|c| c.clamp(0, i64::from(u32::MAX)) as u32);
        estimate_counts(&counts, self.family(), t.non_empty > 0)
    }
}

/// Whether no pre-tokenizer piece spans the cut between a text whose last
/// line is `before` (followed by `\n`) and a text whose first line is
/// `after`, whatever came before `before`: `before` is `None` when the
/// text before the cut ends in a line of punctuation of its own (a marker
/// such as `[lines 3-9]`).
///
/// Two rules make a cut unclean. Blanks after the cut that reach a line
/// break or other white space (a line of only blanks, an indentation with
/// a `\r` or a no-break space in it) join the newline before them into one
/// newline piece. A `/` after a line that
/// ends in a mark is swallowed by that mark's piece (o200k's punctuation
/// pattern takes the newlines and slashes after it; so does the
/// estimator). Both are judged conservatively: an unclean verdict only
/// costs counting the two lines together.
pub fn clean_cut(before: Option<&str>, after: &str) -> bool {
    let first_mark = after.trim_start_matches([' ', '\t']).chars().next();
    if first_mark.is_none_or(char::is_whitespace) {
        return false;
    }
    if !after.starts_with('/') {
        return true;
    }
    let ends_in_word = |l: &str| {
        l.bytes()
            .last()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b' ' || b == b'\t')
    };
    before.is_some_and(ends_in_word)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Joined at a clean cut, two texts' tallies add up to the joined
    /// text's; at the cuts the rule refuses they do not (so the rule is
    /// needed, not just cautious).
    #[test]
    fn tallies_add_up_at_clean_cuts_only() {
        let tok = Tokenizer::default();
        let joined = |a: &str, b: &str| tok.tally(&format!("{a}\n{b}\n")).pieces;
        let apart =
            |a: &str, b: &str| (tok.tally(&format!("{a}\n")) + tok.tally(&format!("{b}\n"))).pieces;
        for (a, b) in [
            ("fn f() {", "    x;"),
            ("}", "pub fn g()"),
            ("a", "/x"),
            ("", "y"),
            ("x = 1", "12"),
        ] {
            assert!(clean_cut(Some(a), b), "{a:?} {b:?}");
            assert_eq!(joined(a, b), apart(a, b), "{a:?} {b:?}");
        }
        for (a, b) in [("x;", "/y"), ("a", ""), ("a", "   "), ("a", "  \rb")] {
            assert!(!clean_cut(Some(a), b), "{a:?} {b:?}");
            assert_ne!(joined(a, b), apart(a, b), "{a:?} {b:?}");
        }
        assert!(!clean_cut(None, "/x"));
        assert_eq!(
            tok.total(&tok.tally("fn main() {}\n")),
            tok.count("fn main() {}\n")
        );
    }
}
