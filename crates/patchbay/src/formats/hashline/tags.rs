//! Line tags for the hashline format: `N:TAG content`.
//!
//! The default TAG (a contract, docs/contracts.md) is the first 4 characters of the
//! unpadded base64url encoding of the 4-byte big-endian CRC-32 (IEEE) of the
//! line without its terminator and without trailing whitespace. Options:
//! tag length 2 to 8 (beyond 5 characters, where 32 bits run out, a second
//! CRC-32 with another initial state widens the hash to 64 bits; the first 5
//! characters stay the same), and hashing the 1-based line number too (the
//! CRC then covers `N:` followed by the line). `O(len)` a line.

use super::crc;
use crate::apply::text::{LineEnds, LineSpan};
use serde::{Deserialize, Serialize};

/// How tags are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub struct TagOptions {
    /// Characters per tag, 2 to 8.
    pub len: usize,
    /// Whether the line number is part of the hashed text.
    pub with_line: bool,
}

impl Default for TagOptions {
    fn default() -> Self {
        TagOptions {
            len: 4,
            with_line: false,
        }
    }
}

impl TagOptions {
    /// The length clamped to the supported range.
    pub fn chars(&self) -> usize {
        self.len.clamp(2, 8)
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The tag characters of a line: `buf[s..e]` is the line without terminator
/// and trailing whitespace, `prefix` the hashed `N:` (empty unless
/// `with_line`).
#[inline(always)]
fn tag_chars(prefix: &[u8], buf: &[u8], s: usize, e: usize, len: usize) -> [u8; 8] {
    let n = e - s;
    let (first, second) = if n >= crc::LONG {
        let seeded = |seed| crc::long(crc::resume(seed, prefix, 0, prefix.len()), &buf[s..e]);
        (seeded(0), if len > 5 { seeded(crc::WIDE_SEED) } else { 0 })
    } else if prefix.is_empty() {
        // Both CRCs share the bytes' part; the seeds differ by a table.
        let raw = crc::raw(buf, s, e);
        (raw ^ crc::ZEROS[n], raw ^ crc::WIDE_ZEROS[n])
    } else {
        let seeded = |seed| crc::resume(crc::resume(seed, prefix, 0, prefix.len()), buf, s, e);
        (seeded(0), if len > 5 { seeded(crc::WIDE_SEED) } else { 0 })
    };
    encode(first, second, len)
}

/// Base64url of the CRC bytes (big-endian), a stream of 6-bit groups: the
/// first `len` characters (8 bytes written, the rest to be cut).
#[inline(always)]
fn encode(first: u32, second: u32, len: usize) -> [u8; 8] {
    let v = (first as u64) << 32 | second as u64;
    let mut out = [0u8; 8];
    // Two fixed loops (unrolled): the default 4-character tag needs only
    // the first group of five.
    if len <= 5 {
        for (i, o) in out[..5].iter_mut().enumerate() {
            *o = B64[(v >> (58 - 6 * i) & 63) as usize];
        }
    } else {
        for (i, o) in out.iter_mut().enumerate() {
            *o = B64[(v >> (58 - 6 * i) & 63) as usize];
        }
    }
    out
}

/// The length of the line without trailing whitespace (`str::trim_end`),
/// answered at once for the usual line that ends in visible ASCII.
#[inline]
fn trimmed_len(line: &str) -> usize {
    match line.as_bytes().last() {
        Some(&b) if b > b' ' && b < 0x7f => line.len(),
        Some(_) => line.trim_end().len(),
        None => 0,
    }
}

/// Where `text[s..e]` (a whole line of a `str`) ends without trailing
/// whitespace: [`trimmed_len`] without slicing the `str` (whose boundary
/// checks cost more than the answer) unless the line ends unusually.
#[inline(always)]
fn trimmed_end(text: &str, s: usize, e: usize) -> usize {
    match e
        .checked_sub(1)
        .filter(|&l| l >= s)
        .map(|l| text.as_bytes()[l])
    {
        Some(b) if b > b' ' && b < 0x7f => e,
        Some(_) => s + text[s..e].trim_end().len(),
        None => e,
    }
}

/// The tag of one line (content without terminator); `line_no` is 1-based.
pub fn tag(line: &str, line_no: usize, opt: TagOptions) -> String {
    let mut out = String::with_capacity(8);
    push_tag(&mut out, line, line_no, opt);
    out
}

/// Appends the tag of a line to `out` without allocating: the tagged view of
/// a large file is one pass of this.
pub fn push_tag(out: &mut String, line: &str, line_no: usize, opt: TagOptions) {
    let mut num = [0u8; 21];
    let prefix: &[u8] = if opt.with_line {
        let digits = write_decimal(&mut num[..20], line_no);
        num[20] = b':';
        &num[20 - digits..21]
    } else {
        &[]
    };
    let len = opt.chars();
    let chars = tag_chars(prefix, line.as_bytes(), 0, trimmed_len(line), len);
    for &c in &chars[..len] {
        out.push(c as char);
    }
}

/// Writes `n` in decimal right-aligned at the end of `buf`; returns digits.
fn write_decimal(buf: &mut [u8], mut n: usize) -> usize {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return buf.len() - i;
        }
    }
}

/// A line number as decimal text, counted up in place (amortised `O(1)` a
/// line instead of formatting each number): `buf[..width]` are the digits,
/// the bytes after them are free, so the view copies all 32 at once.
struct Counter {
    buf: [u8; 32],
    width: usize,
}

impl Counter {
    /// Starts at 1.
    fn new() -> Self {
        let mut buf = [b'0'; 32];
        buf[0] = b'1';
        Counter { buf, width: 1 }
    }

    fn increment(&mut self) {
        let mut i = self.width;
        while i > 0 {
            i -= 1;
            if self.buf[i] == b'9' {
                self.buf[i] = b'0';
            } else {
                self.buf[i] += 1;
                return;
            }
        }
        // It was all nines: one digit more, `10...0`.
        self.buf[0] = b'1';
        self.buf[self.width] = b'0';
        self.width += 1;
    }

    fn digits(&self) -> &[u8] {
        &self.buf[..self.width]
    }
}

/// Appends `src[s..e]` to `out`: short ranges as one fixed-size copy (no
/// call to `memcpy`) when `src` has the room, then cut back.
#[inline(always)]
fn append(out: &mut Vec<u8>, src: &[u8], s: usize, e: usize) {
    const CHUNK: usize = 32;
    let len = out.len();
    if e - s <= CHUNK && s + CHUNK <= src.len() {
        out.extend_from_slice(&src[s..s + CHUNK]);
        out.truncate(len + e - s);
    } else {
        out.extend_from_slice(&src[s..e]);
    }
}

/// The tagged view of a text: `N:TAG content` a line, LF-terminated.
/// Linear in the text; one allocation for the output. Lines are split as
/// [`crate::apply::text::Text`] does (a leading BOM is not content, `\r\n` and
/// `\n` end a line, a lone `\r` does not) but on the fly, without a span
/// list; the line number is a decimal counter, not formatted anew a line.
pub fn view(text: &str, opt: TagOptions) -> String {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bytes = body.as_bytes();
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    let lines = newlines + usize::from(bytes.last().is_some_and(|&b| b != b'\n'));
    let len = opt.chars();
    // Exact bound: each line adds its number, `:`, the tag, ` ` and at most
    // one byte more than it had (a last line without newline gets one);
    // the slack is for the last fixed-size copy. Not zeroed: written by
    // appending, so no `memset` of megabytes first.
    let width = lines.checked_ilog10().map_or(1, |d| d as usize + 1);
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len() + 64 + lines * (width + len + 2));
    let mut number = Counter::new();
    for LineSpan {
        start,
        content_end: end,
        ..
    } in LineEnds::new(bytes)
    {
        let w = number.width;
        let e = trimmed_end(body, start, end);
        let tag = if opt.with_line {
            let mut p = [0u8; 24];
            p[..w].copy_from_slice(number.digits());
            p[w] = b':';
            tag_chars(&p[..w + 1], bytes, start, e, len)
        } else {
            tag_chars(&[], bytes, start, e, len)
        };
        // `N:TAG `: the counter's 32 bytes in one fixed-size copy, the rest
        // written over its tail, then cut to length. (Writing the header in
        // the counter first would stall the wide load on the byte stores.)
        let at = out.len();
        out.extend_from_slice(&number.buf);
        out[at + w] = b':';
        out[at + w + 1..at + w + 9].copy_from_slice(&tag);
        out[at + w + 1 + len] = b' ';
        out.truncate(at + w + len + 2);
        append(&mut out, bytes, start, end);
        out.push(b'\n');
        // Counted up for the next line only now, long before its copy.
        number.increment();
    }
    // Whole lines of `body` (cut at `\n`, `\r\n` or its end: character
    // boundaries) and ASCII: valid UTF-8. Checking it costs about 2% here,
    // so the view needs no `unsafe`.
    String::from_utf8(out).expect("whole lines of a str and ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The straightforward implementation the fast paths must equal: the
    /// contract as docs/contracts.md words it, on crc32fast and `Text`.
    mod reference {
        use super::super::{TagOptions, B64};

        /// The wide tag's second seed, as docs/contracts.md gives it.
        const WIDE_SEED: u32 = 0x9e37_79b9;

        fn crc(seed: u32, prefix: &[u8], line: &[u8]) -> u32 {
            let mut h = crc32fast::Hasher::new_with_initial(seed);
            h.update(prefix);
            h.update(line);
            h.finalize()
        }

        pub fn encode(bytes: &[u8], max: usize) -> String {
            let mut out = String::new();
            for chunk in bytes.chunks(3) {
                let b = [
                    chunk[0],
                    *chunk.get(1).unwrap_or(&0),
                    *chunk.get(2).unwrap_or(&0),
                ];
                let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
                for i in 0..chunk.len() + 1 {
                    if out.len() == max {
                        return out;
                    }
                    out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
                }
            }
            out
        }

        pub fn tag(line: &str, line_no: usize, opt: TagOptions) -> String {
            let body = line.trim_end().as_bytes();
            let prefix = if opt.with_line {
                format!("{line_no}:")
            } else {
                String::new()
            };
            let mut bytes = crc(0, prefix.as_bytes(), body).to_be_bytes().to_vec();
            if opt.chars() > 5 {
                bytes.extend(crc(WIDE_SEED, prefix.as_bytes(), body).to_be_bytes());
            }
            encode(&bytes, opt.chars())
        }

        pub fn view(text: &str, opt: TagOptions) -> String {
            let t = crate::apply::text::Text::new(text);
            let mut out = String::new();
            for i in 0..t.len() {
                let line = t.line(i);
                out.push_str(&format!("{}:{} {line}\n", i + 1, tag(line, i + 1, opt)));
            }
            out
        }
    }

    fn encode(bytes: &[u8]) -> String {
        reference::encode(bytes, usize::MAX)
    }

    #[test]
    fn counter_counts() {
        let mut c = Counter::new();
        for n in 1..=100_500usize {
            assert_eq!(c.digits(), n.to_string().as_bytes());
            c.increment();
        }
    }

    /// Lines with what the fast paths special-case: CR, trailing (also
    /// Unicode) whitespace, a BOM, non-ASCII, empty lines, 16-byte blocks
    /// and lines long enough for crc32fast.
    fn texts() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            4 => "[a-z{}();= \t\r\u{a0}\u{2003}\u{85}é\u{feff}漢🦀]{0,40}",
            1 => "[ab\t ]{100,300}",
            1 => Just(String::new()),
        ];
        (
            proptest::collection::vec(
                (line, prop_oneof![Just("\n"), Just("\r\n"), Just("\r")]),
                0..40,
            ),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(lines, bom, last)| {
                let mut s = String::from(if bom { "\u{feff}" } else { "" });
                for (l, eol) in &lines {
                    s.push_str(l);
                    s.push_str(eol);
                }
                if last {
                    s.push_str("tail \u{a0}");
                }
                s
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn view_is_the_reference(text in texts(), len in 0usize..11, with_line in any::<bool>()) {
            let opt = TagOptions { len, with_line };
            prop_assert_eq!(view(&text, opt), reference::view(&text, opt));
        }

        #[test]
        fn tag_is_the_reference(line in "\\PC{0,200}", no in 0usize..2_000_000, len in 2usize..9, with_line in any::<bool>()) {
            let opt = TagOptions { len, with_line };
            prop_assert_eq!(tag(&line, no, opt), reference::tag(&line, no, opt));
        }
    }

    #[test]
    fn view_edges_are_the_reference() {
        for text in [
            "",
            "\n",
            "\r\n",
            "\r",
            "a",
            "a\n",
            "a\r\n\r\n",
            "\u{feff}",
            "\u{feff}\n",
            "\u{feff}x",
            "a\r\rb\r",
            "\n\n\n",
            "x \t\u{a0}\n y\u{3000}",
        ] {
            for len in 2..=8 {
                for with_line in [false, true] {
                    let opt = TagOptions { len, with_line };
                    assert_eq!(
                        view(text, opt),
                        reference::view(text, opt),
                        "{text:?} {opt:?}"
                    );
                }
            }
        }
        // Past 9, 99, 999... lines the number gains a digit.
        let many = "x\n".repeat(10_050);
        let opt = TagOptions {
            len: 8,
            with_line: true,
        };
        assert_eq!(view(&many, opt), reference::view(&many, opt));
    }

    #[test]
    fn default_tag_is_the_contract() {
        // CRC-32 of "int count = 10;" computed independently: 0x1f4e7b6e
        // would be base64url "H057bg"; check the encoding path on a known
        // vector instead: CRC-32("123456789") = 0xCBF43926 -> "y_Q5Jg".
        assert_eq!(crc32fast::hash(b"123456789"), 0xCBF4_3926);
        assert_eq!(encode(&0xCBF4_3926u32.to_be_bytes()), "y_Q5Jg");
        assert_eq!(tag("123456789", 1, TagOptions::default()), "y_Q5");
        // Trailing whitespace does not change the tag; leading does.
        assert_eq!(tag("123456789  \t", 7, TagOptions::default()), "y_Q5");
        assert_ne!(tag(" 123456789", 7, TagOptions::default()), "y_Q5");
    }

    #[test]
    fn options() {
        let five = tag(
            "x",
            3,
            TagOptions {
                len: 5,
                with_line: false,
            },
        );
        let eight = tag(
            "x",
            3,
            TagOptions {
                len: 8,
                with_line: false,
            },
        );
        assert_eq!(eight.len(), 8);
        assert!(eight.starts_with(&five));
        assert_ne!(
            tag(
                "x",
                3,
                TagOptions {
                    len: 4,
                    with_line: true
                }
            ),
            tag(
                "x",
                4,
                TagOptions {
                    len: 4,
                    with_line: true
                }
            )
        );
        assert_eq!(
            tag(
                "x",
                1,
                TagOptions {
                    len: 99,
                    with_line: false
                }
            )
            .len(),
            8
        );
    }

    #[test]
    fn view_lines() {
        let v = view("a\r\nb", TagOptions::default());
        let lines: Vec<&str> = v.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("1:") && lines[0].ends_with(" a"));
        assert!(lines[1].starts_with("2:") && lines[1].ends_with(" b"));
    }
}
