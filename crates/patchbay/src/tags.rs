//! Line tags for the hashline format: `N:TAG content`.
//!
//! The default TAG (a contract, DESIGN.md) is the first 4 characters of the
//! unpadded base64url encoding of the 4-byte big-endian CRC-32 (IEEE) of the
//! line without its terminator and without trailing whitespace. Options:
//! tag length 2 to 8 (beyond 5 characters, where 32 bits run out, a second
//! CRC-32 with another initial state widens the hash to 64 bits; the first 5
//! characters stay the same), and hashing the 1-based line number too (the
//! CRC then covers `N:` followed by the line). `O(len)` a line.

use serde::{Deserialize, Serialize};

/// How tags are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

/// Second CRC-32 initial state for wide tags (any fixed odd constant).
const WIDE_SEED: u32 = 0x9e37_79b9;

fn crc(seed: Option<u32>, prefix: &[u8], line: &[u8]) -> u32 {
    let mut h = match seed {
        Some(s) => crc32fast::Hasher::new_with_initial(s),
        None => crc32fast::Hasher::new(),
    };
    h.update(prefix);
    h.update(line);
    h.finalize()
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
    let body = line.trim_end().as_bytes();
    let mut num = [0u8; 21];
    let prefix: &[u8] = if opt.with_line {
        let digits = write_decimal(&mut num[..20], line_no);
        let start = 20 - digits;
        num[20] = b':';
        &num[start..21]
    } else {
        &[]
    };
    let len = opt.chars();
    let mut bytes = [0u8; 8];
    // The common case (no line number) takes crc32fast's one-shot hash.
    let first = if prefix.is_empty() {
        crc32fast::hash(body)
    } else {
        crc(None, prefix, body)
    };
    bytes[..4].copy_from_slice(&first.to_be_bytes());
    let used = if len > 5 {
        bytes[4..].copy_from_slice(&crc(Some(WIDE_SEED), prefix, body).to_be_bytes());
        8
    } else {
        4
    };
    encode_into(out, &bytes[..used], len);
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

/// Unpadded base64url of `bytes`, at most `max` characters.
fn encode_into(out: &mut String, bytes: &[u8], max: usize) {
    let mut written = 0;
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..chunk.len() + 1 {
            if written == max {
                return;
            }
            out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            written += 1;
        }
    }
}

/// Unpadded base64url.
#[cfg(test)]
fn encode(bytes: &[u8]) -> String {
    let mut s = String::new();
    encode_into(&mut s, bytes, usize::MAX);
    s
}

/// The tagged view of a text: `N:TAG content` a line, LF-terminated.
/// Linear in the text; one allocation for the output.
pub fn view(text: &str, opt: TagOptions) -> String {
    let t = crate::text::Text::new(text);
    let mut out = String::with_capacity(text.len() + t.len() * (opt.chars() + 9));
    let mut num = [0u8; 20];
    for i in 0..t.len() {
        let line = t.line(i);
        let d = write_decimal(&mut num, i + 1);
        out.push_str(std::str::from_utf8(&num[20 - d..]).expect("ASCII digits"));
        out.push(':');
        push_tag(&mut out, line, i + 1, opt);
        out.push(' ');
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// CRC-32 of a whole text (the `file-crc` check of the `lines` format).
pub fn file_crc(text: &str) -> u32 {
    crc32fast::hash(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

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
