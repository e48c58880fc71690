//! The estimator's one pass: the pieces a modern BPE pre-tokenizer would cut
//! a text into, counted by kind, without any vocabulary.
//!
//! It follows o200k_base's split pattern (letters with camelCase humps and
//! one leading non-letter, digit groups of up to 3, punctuation runs that
//! swallow the newlines after them, newline runs, indentation runs that
//! leave their last space to the next word) closely enough that a linear
//! model over the counts ([`super::weights`]) lands within a few percent of
//! the exact token count. Non-ASCII characters are counted by their UTF-8
//! length, which tracks how many tokens a script costs.
//!
//! Cost: one pass over the bytes with a 256-entry class table, `O(len)`, no
//! allocation.

/// What the scanner counts. Every field is a plain count; [`Features::array`]
/// lists them in the order of [`FEATURE_NAMES`] for the fitted weights.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// Letter pieces, split at camelCase humps (o200k's rule).
    pub words: u32,
    /// Hump splits among them (cl100k keeps `getValue` as one piece).
    pub humps: u32,
    /// Letters past the 4th of each piece.
    pub long4: u32,
    /// Letters past the 8th of each piece.
    pub long8: u32,
    /// All-capital pieces of two or more letters (`HTTP`, `MAX_LEN`), and
    /// their letters past the 3rd (capitals merge less in every vocabulary).
    pub caps: u32,
    pub caps_long: u32,
    /// Digit groups of up to 3 digits.
    pub digit_groups: u32,
    /// Digits (tokenizers that split every digit).
    pub digits: u32,
    /// Punctuation pieces (a single mark before a word joins the word).
    pub puncts: u32,
    /// Changes of mark past the 2nd of each punctuation piece, and marks
    /// that repeat the one before.
    pub punct_long: u32,
    pub punct_rep: u32,
    /// Newline pieces (with the blanks before them).
    pub newlines: u32,
    /// Blank pieces on their own: indentation, alignment.
    pub spaces: u32,
    /// Blanks past the 4th of each blank piece.
    pub space_long: u32,
    /// Non-ASCII characters by UTF-8 length: 2, 3 and 4 bytes.
    pub chars2: u32,
    pub chars3: u32,
    /// Kana, CJK ideographs and Hangul (three bytes each).
    pub cjk: u32,
    pub chars4: u32,
    /// Words that carry a leading mark (`.value`, `_name`, `(x`).
    pub prefixed: u32,
    /// Tab characters in blank pieces.
    pub tabs: u32,
    /// Line feeds.
    pub lines: u32,
}

/// Names of the features, in [`Features::array`] order (the CSV header of
/// the calibration data and the order of the fitted weights).
pub const FEATURE_NAMES: [&str; N_FEATURES] = [
    "words",
    "humps",
    "long4",
    "long8",
    "caps",
    "caps_long",
    "digit_groups",
    "digits",
    "puncts",
    "punct_long",
    "punct_rep",
    "newlines",
    "spaces",
    "space_long",
    "chars2",
    "chars3",
    "cjk",
    "chars4",
    "prefixed",
    "tabs",
    "lines",
];

/// Number of features.
pub const N_FEATURES: usize = 21;

impl Features {
    /// The counts in [`FEATURE_NAMES`] order.
    pub fn array(&self) -> [u32; N_FEATURES] {
        [
            self.words,
            self.humps,
            self.long4,
            self.long8,
            self.caps,
            self.caps_long,
            self.digit_groups,
            self.digits,
            self.puncts,
            self.punct_long,
            self.punct_rep,
            self.newlines,
            self.spaces,
            self.space_long,
            self.chars2,
            self.chars3,
            self.cjk,
            self.chars4,
            self.prefixed,
            self.tabs,
            self.lines,
        ]
    }
}

// Byte classes. Non-ASCII lead bytes count as letters (most non-ASCII text
// is letters); the general and CJK punctuation blocks are caught separately.
const UP: u8 = 0;
const LO: u8 = 1;
const DIG: u8 = 2;
const BLANK: u8 = 3;
const NL: u8 = 4;
const PUN: u8 = 5;
const LEAD: u8 = 6;
const CONT: u8 = 7;

const CLASS: [u8; 256] = {
    let mut t = [PUN; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = match b {
            b'A'..=b'Z' => UP,
            b'a'..=b'z' => LO,
            b'0'..=b'9' => DIG,
            b' ' | b'\t' | 0x0b | 0x0c => BLANK,
            b'\n' | b'\r' => NL,
            0x80..=0xbf => CONT,
            0xc0..=0xff => LEAD,
            _ => PUN,
        };
        i += 1;
    }
    t
};

/// Byte length of a UTF-8 sequence from its lead byte.
#[inline]
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        _ => 2,
    }
}

/// Whether the non-ASCII character at `i` is punctuation or a symbol for
/// the pre-tokenizer: U+2000-U+2FFF (general punctuation, arrows, math, box
/// drawing) and U+3000-U+303F (CJK punctuation).
#[inline]
fn lead_is_mark(b: &[u8], i: usize) -> bool {
    match b[i] {
        0xe2 => true,
        0xe3 => b.get(i + 1) == Some(&0x80),
        _ => false,
    }
}

/// The class of the character starting at `i`, with non-ASCII marks as
/// punctuation.
#[inline]
fn class_at(b: &[u8], i: usize) -> u8 {
    let c = CLASS[b[i] as usize];
    if c == LEAD && lead_is_mark(b, i) {
        PUN
    } else {
        c
    }
}

#[inline]
fn is_letter(c: u8) -> bool {
    c == UP || c == LO || c == LEAD
}

/// Counts the pieces of `text`. Never panics; any `&str` is valid input.
pub fn features(text: &str) -> Features {
    let b = text.as_bytes();
    let n = b.len();
    let mut f = Features::default();
    let mut i = 0;
    while i < n {
        let c = class_at(b, i);
        i = match c {
            UP | LO | LEAD => word(b, i, &mut f),
            DIG => {
                let s = i;
                while i < n && CLASS[b[i] as usize] == DIG {
                    i += 1;
                }
                let r = (i - s) as u32;
                f.digits += r;
                f.digit_groups += r.div_ceil(3);
                i
            }
            BLANK | NL => blanks(b, i, &mut f),
            CONT => i + 1, // unreachable in valid UTF-8; skip defensively
            _ => {
                // A lone mark right before a letter is the word's prefix.
                let next = i + if b[i] < 0x80 { 1 } else { utf8_len(b[i]) };
                if next < n && is_letter(class_at(b, next)) {
                    if b[i] >= 0x80 {
                        count_char(b, i, &mut f);
                    }
                    f.prefixed += 1;
                    word(b, next, &mut f)
                } else {
                    punct(b, i, &mut f)
                }
            }
        };
    }
    f
}

/// Counts the non-ASCII character at `i` and returns its byte length.
#[inline]
fn count_char(b: &[u8], i: usize, f: &mut Features) -> usize {
    let l = utf8_len(b[i]);
    match l {
        2 => f.chars2 += 1,
        // Kana, CJK ideographs and Hangul (U+3040-U+D7FF; the CJK marks
        // U+3000-U+303F are caught before) merge far better than other
        // three-byte characters.
        3 if (0xe3..=0xed).contains(&b[i]) => f.cjk += 1,
        3 => f.chars3 += 1,
        _ => f.chars4 += 1,
    }
    l
}

/// One or more letter pieces from `i`: a new piece starts where a lower
/// case letter is followed by an upper case one.
fn word(b: &[u8], mut i: usize, f: &mut Features) -> usize {
    let n = b.len();
    let mut len = 0u32;
    let mut upper = 0u32;
    let mut prev_lower = false;
    let close = |len: u32, upper: u32, f: &mut Features| {
        f.words += 1;
        f.long4 += len.saturating_sub(4);
        f.long8 += len.saturating_sub(8);
        if upper == len && len >= 2 {
            f.caps += 1;
            f.caps_long += len.saturating_sub(3);
        }
    };
    while i < n {
        let c = class_at(b, i);
        match c {
            UP => {
                if prev_lower {
                    close(len, upper, f);
                    f.humps += 1;
                    len = 0;
                    upper = 0;
                }
                let s = i;
                i += 1;
                while i < n && b[i].is_ascii_uppercase() {
                    i += 1;
                }
                len += (i - s) as u32;
                upper += (i - s) as u32;
                prev_lower = false;
            }
            LO => {
                // Most letters are lower case ASCII: take the run at once.
                let s = i;
                i += 1;
                while i < n && b[i].is_ascii_lowercase() {
                    i += 1;
                }
                len += (i - s) as u32;
                prev_lower = true;
            }
            LEAD => {
                // Non-ASCII letters count as characters, not as letters.
                i += count_char(b, i, f);
                prev_lower = true;
            }
            _ => break,
        }
    }
    close(len, upper, f);
    i
}

/// A punctuation piece from `i`, with the newlines (and, as o200k does,
/// slashes) after it.
fn punct(b: &[u8], mut i: usize, f: &mut Features) -> usize {
    let n = b.len();
    let mut len = 0u32;
    let mut prev = 0u8;
    while i < n {
        let c = CLASS[b[i] as usize];
        if c != PUN && !(c == LEAD && lead_is_mark(b, i)) {
            break;
        }
        // A repeated mark (`----`, `====`) merges into long tokens; a
        // mixed run (`$(($`) does not.
        if b[i] == prev {
            f.punct_rep += 1;
        } else {
            len += 1;
        }
        prev = b[i];
        i += if b[i] < 0x80 { 1 } else { count_char(b, i, f) };
    }
    while i < n && (b[i] == b'\n' || b[i] == b'\r' || b[i] == b'/') {
        f.lines += (b[i] == b'\n') as u32;
        i += 1;
    }
    f.puncts += 1;
    f.punct_long += len.saturating_sub(2);
    i
}

/// A run of blanks and newlines from `i`. Up to its last newline it is one
/// newline piece; the blanks after that form an indentation piece that
/// leaves its last blank to a following word or mark.
fn blanks(b: &[u8], mut i: usize, f: &mut Features) -> usize {
    let n = b.len();
    let run = i;
    let mut last_nl = None;
    while i < n {
        match CLASS[b[i] as usize] {
            NL => {
                last_nl = Some(i);
                f.lines += (b[i] == b'\n') as u32;
            }
            BLANK => f.tabs += (b[i] == b'\t') as u32,
            _ => break,
        }
        i += 1;
    }
    let start = match last_nl {
        Some(p) => {
            f.newlines += 1;
            p + 1
        }
        None => run,
    };
    let rest = (i - start) as u32;
    if rest == 0 {
        return i;
    }
    let next = if i < n { class_at(b, i) } else { NL };
    let (piece, standalone_last) = match next {
        // The last blank is the prefix of the word or the mark after it.
        UP | LO | LEAD | PUN => (rest - 1, false),
        // Digits take no prefix: the last blank is a piece of its own.
        DIG => (rest - 1, true),
        // End of text.
        _ => (rest, false),
    };
    if piece > 0 {
        f.spaces += 1;
        f.space_long += piece.saturating_sub(4);
    }
    if standalone_last {
        f.spaces += 1;
    }
    if next == PUN {
        // ` ?[^\s\p{L}\p{N}]+`: with the blank as its prefix the mark is a
        // punctuation piece even when a letter follows (` "size"`).
        return punct(b, i, f);
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_humps_and_prefixes() {
        let f = features("getElementById(x)");
        // get Element By Id, "(x" with a prefix, ")".
        assert_eq!(f.words, 5);
        assert_eq!(f.humps, 3);
        assert_eq!(f.prefixed, 1);
        assert_eq!(f.puncts, 1);
    }

    #[test]
    fn digits_in_groups_of_three() {
        let f = features("1000000");
        assert_eq!((f.digit_groups, f.digits), (3, 7));
    }

    #[test]
    fn indentation_leaves_its_last_blank() {
        // "foo", "\n", "   " (3 blanks), " bar".
        let f = features("foo\n    bar");
        assert_eq!((f.words, f.newlines, f.spaces), (2, 1, 1));
        // Before a digit the last blank stands alone.
        let f = features("x =  1");
        assert_eq!((f.words, f.puncts, f.spaces, f.digit_groups), (1, 1, 2, 1));
    }

    #[test]
    fn punctuation_swallows_newlines() {
        let f = features("};\n\n");
        assert_eq!((f.puncts, f.newlines), (1, 0));
        let f = features("a :: b");
        assert_eq!((f.words, f.puncts), (2, 1));
    }

    #[test]
    fn non_ascii_by_length() {
        let f = features("café 日本語 😀 — x");
        assert_eq!((f.chars2, f.cjk, f.chars3, f.chars4), (1, 3, 1, 1));
        // The dash is a mark, so it is a punctuation piece.
        assert!(f.puncts >= 1);
    }

    #[test]
    fn empty_and_odd_inputs() {
        assert_eq!(features(""), Features::default());
        for s in ["\n", " ", "\t\t", "\r\n", "é", "a\u{0}b", "  \n  "] {
            let f = features(s);
            assert!(f.array().iter().sum::<u32>() > 0, "{s:?}");
        }
    }
}
