//! Line normalisations used by the matcher ladder, and the line hash.
//!
//! Each is `O(len)` of the line. `fold` maps the Unicode look-alikes models
//! produce when they "typeset" code (curly quotes, dashes, non-breaking and
//! other exotic spaces, the ellipsis, full-width punctuation) to ASCII, so a
//! block that differs from the file only by such characters can be found.

use std::borrow::Cow;

/// Leading whitespace of a line.
pub fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// Visual width of an indentation with tab stops every `tab` columns.
pub fn indent_width(ind: &str, tab: usize) -> usize {
    let mut w = 0;
    for c in ind.chars() {
        if c == '\t' {
            w += tab - w % tab;
        } else {
            w += 1;
        }
    }
    w
}

fn fold_char(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}' | '\u{2032}' | '\u{ff07}' => "'",
        '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' | '\u{2033}' | '\u{ff02}' => "\"",
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' | '\u{fe63}' | '\u{ff0d}' => "-",
        '\u{00a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => " ",
        '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' => "",
        '\u{2026}' => "...",
        '\u{ff08}' => "(",
        '\u{ff09}' => ")",
        '\u{ff1a}' => ":",
        '\u{ff1b}' => ";",
        '\u{ff0c}' => ",",
        '\u{2039}' => "<",
        '\u{203a}' => ">",
        _ => return None,
    })
}

/// Folds Unicode look-alikes to ASCII. Borrows when there is nothing to fold,
/// which is the common case for code.
pub fn fold(line: &str) -> Cow<'_, str> {
    if line.is_ascii() || !line.chars().any(|c| fold_char(c).is_some()) {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        match fold_char(c) {
            Some(s) => out.push_str(s),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether a line has no content but whitespace.
pub fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// A fast 64-bit hash of bytes (FxHash-style multiply-rotate, 8 bytes a
/// step). Not cryptographic: the matcher always verifies text on a hit.
pub fn hash_bytes(b: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ (b.len() as u64).wrapping_mul(K);
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    for &x in chunks.remainder() {
        h = (h ^ x as u64).wrapping_mul(K).rotate_left(29);
    }
    // Final avalanche so that the low bits (used by the hash map) mix well.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// Makes whitespace visible for feedback: space `·`, tab `→`, NBSP `⍽`,
/// carriage return `␍`; other characters stay.
pub fn visible_ws(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            ' ' => '·',
            '\t' => '→',
            '\u{a0}' => '⍽',
            '\r' => '␍',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_lookalikes() {
        assert_eq!(
            fold("let s = \u{201c}a\u{201d} \u{2014} x\u{a0}y;"),
            "let s = \"a\" - x y;"
        );
        assert!(matches!(fold("plain"), Cow::Borrowed(_)));
        assert!(matches!(fold("naïve"), Cow::Borrowed(_)));
    }

    #[test]
    fn widths() {
        assert_eq!(indent_width("\t  ", 4), 6);
        assert_eq!(indent_width("  \t", 4), 4);
        assert_eq!(indent("\t x"), "\t ");
    }

    #[test]
    fn hash_distinguishes() {
        assert_ne!(hash_bytes(b"abc"), hash_bytes(b"abd"));
        assert_ne!(hash_bytes(b""), hash_bytes(b" "));
        assert_eq!(hash_bytes(b"same line"), hash_bytes(b"same line"));
    }
}
