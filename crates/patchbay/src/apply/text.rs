//! The text model: a file as lines that remember their own terminators.
//!
//! Every edit is applied through this model so that what the model cannot see
//! survives it: LF, CRLF and mixed endings (per line), a UTF-8 BOM, and whether
//! the file ends with a newline. A lone `\r` is not a terminator; it stays in
//! the line's content, as git treats it.
//!
//! Splitting is one pass, `O(len)`; each line is its content borrowed from the
//! source, so a 10 MB file costs one `Vec` of `&str` and no copies.
//!
//! Also here: conversions between byte offsets, 0-based line/column and UTF-16
//! code-unit offsets (what JavaScript editors such as CodeMirror count in).

use crate::edit::Position;
use std::ops::Range;
use std::sync::Arc;

const BOM: &str = "\u{feff}";

/// One line: `content` excludes the terminator, `eol` is `""`, `"\n"` or `"\r\n"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSpan {
    pub start: usize,
    pub content_end: usize,
    pub end: usize,
}

/// A parsed view of a file's text.
#[derive(Debug, Clone)]
pub struct Text<'a> {
    src: &'a str,
    bom: bool,
    /// Each line's content (without terminator), borrowed from `src`: where
    /// it starts is its address in `src`, and it ends where the next line
    /// starts (the last one at the end of `src`), so no offsets are stored.
    /// Shared: the matcher's haystack looks
    /// lines up in this same list instead of a copy (a 100,000-line file's
    /// list is 1.6 MB).
    lines: Arc<Vec<&'a str>>,
    /// The CRC-32 of `src`, computed once: every `lines` edit of a file
    /// checks it, and 100,000 edits must not hash the file 100,000 times.
    crc: std::cell::OnceCell<u32>,
    /// Lines ending in `\r\n`, counted by the split (so `dominant_eol` is
    /// `O(1)`: the splice asks for it on every file it writes).
    crlf: usize,
}

impl<'a> Text<'a> {
    /// Splits `src` into lines. An empty file has no lines; `"a\n"` has one.
    pub fn new(src: &'a str) -> Self {
        let bom = src.starts_with(BOM);
        let body_start = if bom { BOM.len() } else { 0 };
        let body = &src[body_start..];
        // memchr's vectorised count reserves the line list exactly (no
        // regrowth, no copy of it); the split is `LineEnds` (newline bit
        // masks 64 bytes at a time, a few instructions a line).
        let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', body.as_bytes()).count() + 1);
        let mut crlf = 0;
        for s in LineEnds::new(body.as_bytes()) {
            crlf += usize::from(s.end - s.content_end == 2);
            // Cut at `\n`, `\r\n` or the end: character boundaries.
            lines.push(&body[s.start..s.content_end]);
        }
        Text {
            src,
            bom,
            lines: Arc::new(lines),
            crc: std::cell::OnceCell::new(),
            crlf,
        }
    }

    pub fn src(&self) -> &'a str {
        self.src
    }

    /// The CRC-32 of the whole text ([`crate::apply::text::file_crc`]), cached.
    pub fn crc(&self) -> u32 {
        *self.crc.get_or_init(|| file_crc(self.src))
    }
    pub fn has_bom(&self) -> bool {
        self.bom
    }
    pub fn len(&self) -> usize {
        self.lines.len()
    }
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Where a line borrowed from `src` starts in it.
    fn offset_of(&self, line: &str) -> usize {
        line.as_ptr() as usize - self.src.as_ptr() as usize
    }

    /// Where line `i` (0-based) starts; the text's end from `len()` on.
    pub fn start(&self, i: usize) -> usize {
        self.lines
            .get(i)
            .map_or(self.src.len(), |l| self.offset_of(l))
    }

    /// The byte ranges of line `i`: its start, its content's end and its
    /// end past the terminator.
    pub fn span(&self, i: usize) -> LineSpan {
        let start = self.start(i);
        LineSpan {
            start,
            content_end: start + self.lines[i].len(),
            end: self.start(i + 1),
        }
    }

    /// The content of line `i` (0-based), without its terminator.
    pub fn line(&self, i: usize) -> &'a str {
        self.lines[i]
    }

    /// The terminator of line `i`: `""` only for a last line without newline.
    pub fn eol(&self, i: usize) -> &'a str {
        let s = self.span(i);
        &self.src[s.content_end..s.end]
    }

    /// All line contents, borrowed.
    pub fn lines(&self) -> &[&'a str] {
        &self.lines
    }

    /// The line list itself, for a reader that keeps it (the matcher).
    pub fn shared_lines(&self) -> Arc<Vec<&'a str>> {
        Arc::clone(&self.lines)
    }

    /// Whether the last line carries a terminator (true for an empty file).
    pub fn ends_with_newline(&self) -> bool {
        self.lines
            .last()
            .is_none_or(|l| self.offset_of(l) + l.len() < self.src.len())
    }

    /// Lines ending in `\n` alone: every line but an unterminated last one
    /// ends in `\n` or `\r\n`.
    fn lf(&self) -> usize {
        self.len() - usize::from(!self.ends_with_newline()) - self.crlf
    }

    /// Whether some lines end in `\n` and others in `\r\n`, `O(1)`.
    pub fn mixed_eol(&self) -> bool {
        self.crlf > 0 && self.lf() > 0
    }

    /// The terminator most lines use; ties and files without any go to LF.
    pub fn dominant_eol(&self) -> &'static str {
        if self.crlf > self.lf() {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// Byte range of lines `r` (0-based, end exclusive) including terminators.
    pub fn byte_range(&self, r: Range<usize>) -> Range<usize> {
        let start = self.start(r.start);
        let end = if r.end == 0 {
            start.min(self.body_start())
        } else {
            self.start(r.end)
        };
        start..end.max(start)
    }

    pub fn body_start(&self) -> usize {
        if self.bom {
            BOM.len()
        } else {
            0
        }
    }

    /// The 0-based line holding byte `offset` (the one starting at or
    /// before it, the first for one before any line), `O(log n)`.
    pub fn line_of(&self, offset: usize) -> usize {
        let at = self.src.as_ptr() as usize + offset;
        self.lines
            .partition_point(|l| l.as_ptr() as usize <= at)
            .saturating_sub(1)
    }

    /// 0-based (line, byte column) of a byte offset; offsets past the end clamp.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.src.len());
        if self
            .lines
            .first()
            .is_none_or(|l| self.offset_of(l) > offset)
        {
            return (0, offset.saturating_sub(self.body_start()));
        }
        let i = self.line_of(offset);
        (i, offset - self.start(i))
    }

    /// Byte offset of a 0-based (line, byte column), clamped into the line.
    pub fn offset(&self, line: usize, col: usize) -> usize {
        if line < self.len() {
            (self.start(line) + col).min(self.start(line + 1))
        } else {
            self.src.len()
        }
    }
}

/// Bit `8j + 7` set where byte `j` of `w` is `\n` (no false positives:
/// the carry-free form of the zero-byte test, on `w ^ "\n\n\n\n\n\n\n\n"`).
#[inline(always)]
fn newline_high_bits(w: u64) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    let x = w ^ (LO * b'\n' as u64);
    !(((x & (LO * 0x7f)).wrapping_add(LO * 0x7f)) | x) & (LO * 0x80)
}

/// Transposes the 8x8 bit matrix held in `x` (byte `r`, bit `c` goes to
/// byte `c`, bit `r`): three swap steps, no multiply.
#[inline(always)]
fn transpose8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00aa_00aa_00aa_00aa;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_cccc_0000_cccc;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_f0f0_f0f0;
    x ^ t ^ (t << 28)
}

/// The lines of a text as spans (`content_end` before the `\n` or
/// `\r\n`), split as [`Text`] does (it is [`Text::new`]'s split too). Newlines are found 64
/// bytes at a time as a bit mask (eight word-wide tests, portable and
/// without `unsafe`), then taken bit by bit: a few instructions a line, no
/// call a line as with `memchr`, and one hard-to-predict branch per 64
/// bytes instead of one a line. An iterator, so that the view's loop body
/// is inlined around it with its state in registers.
pub(crate) struct LineEnds<'a, M: BlockMask = Portable> {
    bytes: &'a [u8],
    start: usize,
    /// Offset of the block `mask` describes; `mask` holds its newlines
    /// not yet taken.
    base: usize,
    mask: u64,
    finder: M,
}

/// How [`LineEnds`] finds the newlines of a 64-byte block: bit `k` of the
/// mask is set when byte `k` is `\n`. [`Swar`] everywhere; a caller
/// compiled with vector instructions passes a closure that uses them.
pub(crate) trait BlockMask {
    fn mask(&self, block: &[u8; 64]) -> u64;
}

/// Eight word-wide tests and a bit-matrix transpose: portable, for any
/// target (wasm32 builds with SIMD take [`Simd128`] instead).
#[derive(Default)]
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    allow(dead_code)
)]
pub(crate) struct Swar;

impl BlockMask for Swar {
    #[inline(always)]
    fn mask(&self, block: &[u8; 64]) -> u64 {
        // Word `k`'s flags shifted to bit `k` of each byte: byte `j`,
        // bit `k` stands for byte `8k + j` of the block; transposed, it
        // is bit `8k + j`. (A multiply gathering each word's flags
        // instead vectorised into twice the instructions.)
        transpose8(block.chunks_exact(8).enumerate().fold(0, |m, (k, w)| {
            let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            m | newline_high_bits(w) >> (7 - k)
        }))
    }
}

impl<F: Fn(&[u8; 64]) -> u64> BlockMask for F {
    #[inline(always)]
    fn mask(&self, block: &[u8; 64]) -> u64 {
        self(block)
    }
}

/// [`BlockMask`] with SSE2 (four compares and byte-mask moves), for a
/// caller compiled with a feature that implies it.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) fn sse2_newlines(block: &[u8; 64]) -> u64 {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x};
    let word =
        |at: usize| u64::from_le_bytes(block[at..at + 8].try_into().expect("8 bytes")) as i64;
    let nl = _mm_set1_epi8(b'\n' as i8);
    (0..4).fold(0, |m, k| {
        let v = _mm_set_epi64x(word(16 * k + 8), word(16 * k));
        m | (_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) as u16 as u64) << (16 * k)
    })
}

/// [`BlockMask`] with WebAssembly's 128-bit SIMD: four compares and
/// bitmasks, as [`sse2_newlines`] (V8 lowers them to the same SSE2
/// instructions). Every wasm32 build has `simd128` on
/// (`.cargo/config.toml`); there [`Swar`]'s word tests and transpose would
/// be about half of the package's line split and tag view.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[derive(Default)]
pub(crate) struct Simd128;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
impl BlockMask for Simd128 {
    #[inline(always)]
    fn mask(&self, block: &[u8; 64]) -> u64 {
        use std::arch::wasm32::{u8x16_bitmask, u8x16_eq, u8x16_splat};
        let nl = u8x16_splat(b'\n');
        (0..4).fold(0, |m, k| {
            m | u64::from(u8x16_bitmask(u8x16_eq(simd_load(block, 16 * k), nl))) << (16 * k)
        })
    }
}

/// The 16 bytes of `block` from `at` (at most 48) as a vector.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn simd_load(block: &[u8; 64], at: usize) -> std::arch::wasm32::v128 {
    assert!(at <= 48);
    // SAFETY: `at + 16 <= 64` bytes of `block` are readable; `v128_load`
    // takes any alignment.
    unsafe { std::arch::wasm32::v128_load(block.as_ptr().add(at).cast()) }
}

/// The mask the line split uses when the caller picks none: vectors where
/// the target always has them (wasm32 with `simd128`), else [`Swar`] (a
/// caller that detects vector instructions at run time passes its own).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) type Portable = Simd128;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub(crate) type Portable = Swar;

/// Whether `bytes` are all ASCII: `<[u8]>::is_ascii`, but with wasm32's
/// SIMD 64 bytes a step (core's tests one `usize`, four bytes, a step
/// there), since every receipt's UTF-16 offsets start with this test of
/// the whole file.
pub(crate) fn is_ascii(bytes: &[u8]) -> bool {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use std::arch::wasm32::{u8x16_bitmask, v128_or};
        let mut blocks = bytes.chunks_exact(64);
        for block in &mut blocks {
            let block: &[u8; 64] = block.try_into().expect("64 bytes");
            let v = |k: usize| simd_load(block, 16 * k);
            if u8x16_bitmask(v128_or(v128_or(v(0), v(1)), v128_or(v(2), v(3)))) != 0 {
                return false;
            }
        }
        blocks.remainder().is_ascii()
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    bytes.is_ascii()
}

impl<'a> LineEnds<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self::with_mask(bytes, Portable::default())
    }
}

impl<'a, M: BlockMask> LineEnds<'a, M> {
    #[inline(always)]
    pub(crate) fn with_mask(bytes: &'a [u8], finder: M) -> Self {
        let mut it = LineEnds {
            bytes,
            start: 0,
            base: 0,
            mask: 0,
            finder,
        };
        it.mask = it.block_mask();
        it
    }

    /// The newlines of the block at `base` (a partial last one bytewise).
    #[inline(always)]
    fn block_mask(&self) -> u64 {
        let b = self.base;
        match self.bytes.get(b..b + 64) {
            Some(block) => self.finder.mask(block.try_into().expect("64 bytes")),
            None => self.bytes[b.min(self.bytes.len())..]
                .iter()
                .enumerate()
                .fold(0, |m, (k, &c)| m | u64::from(c == b'\n') << k),
        }
    }
}

impl<M: BlockMask> Iterator for LineEnds<'_, M> {
    type Item = LineSpan;

    #[inline(always)]
    fn next(&mut self) -> Option<LineSpan> {
        while self.mask == 0 {
            if self.base + 64 >= self.bytes.len() {
                // No newline left: an unterminated last line, or the end.
                let (s, n) = (self.start, self.bytes.len());
                self.start = n;
                return (s < n).then_some(LineSpan {
                    start: s,
                    content_end: n,
                    end: n,
                });
            }
            self.base += 64;
            self.mask = self.block_mask();
        }
        let nl = self.base + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        let s = self.start;
        self.start = nl + 1;
        let cr = nl > s && self.bytes[nl - 1] == b'\r';
        Some(LineSpan {
            start: s,
            content_end: nl - usize::from(cr),
            end: nl + 1,
        })
    }
}

/// Splits a model-written block into lines, dropping `\r` before `\n`.
/// `"a\nb\n"` and `"a\nb"` both give `["a", "b"]`; `""` gives `[]`.
pub fn split_lines(s: &str) -> Vec<String> {
    Text::new(s).lines().iter().map(|&l| l.to_owned()).collect()
}

/// Where each line of a text starts in UTF-16 code units (JS string
/// indices), to give receipts the offsets editors place decorations with.
/// Line 1 starts after a BOM, a line's range ends past its terminator
/// (`\n` or `\r\n`). An ASCII text (most source files) is one unit a
/// byte, so its offsets are the [`Text`]'s own line starts and nothing is
/// built; another is counted once, a line at a time (a byte at a time, the
/// count would be a sixth of `apply`'s CPU time on a 2 MB file).
pub struct Utf16Lines {
    /// `starts[i]`: the offset of 1-based line `i + 1`, the last entry the
    /// text's length; `None` for ASCII.
    starts: Option<Vec<usize>>,
}

impl Utf16Lines {
    pub fn new(text: &Text) -> Self {
        let bytes = text.src().as_bytes();
        if is_ascii(bytes) {
            return Utf16Lines { starts: None };
        }
        let mut starts = Vec::with_capacity(text.len() + 1);
        let mut units = usize::from(text.has_bom());
        let mut prev = text.body_start();
        for i in 1..=text.len() {
            starts.push(units);
            let end = text.start(i);
            units += utf16_units(&bytes[prev..end]);
            prev = end;
        }
        starts.push(units);
        Utf16Lines {
            starts: Some(starts),
        }
    }

    /// The half-open UTF-16 range of 1-based inclusive `lines` (`[n, n-1]`
    /// is the empty range where line `n` starts), clamped to the text.
    pub fn range(&self, text: &Text, lines: [usize; 2]) -> [usize; 2] {
        let from = self.line_start(text, lines[0].saturating_sub(1));
        [from, self.line_start(text, lines[1]).max(from)]
    }

    /// Where 0-based line `i` of `text` (the one this was built from)
    /// starts; the text's end past the last line.
    pub fn line_start(&self, text: &Text, i: usize) -> usize {
        match &self.starts {
            Some(starts) => starts[i.min(starts.len() - 1)],
            None => text.start(i),
        }
    }

    /// Where 0-based line `i` starts, as a [`Position`]; past the last line,
    /// the text's end (after a final newline, the empty line editors show
    /// there).
    pub fn position(&self, text: &Text, i: usize) -> Position {
        if i < text.len() {
            return Position {
                line: i + 1,
                col: 0,
            };
        }
        match text.len() {
            0 => Position { line: 1, col: 0 },
            n if text.ends_with_newline() => Position {
                line: n + 1,
                col: 0,
            },
            n => Position {
                line: n,
                col: utf16_units(text.line(n - 1).as_bytes()),
            },
        }
    }

    /// The offsets and positions of 1-based inclusive `lines`, clamped to
    /// the text as [`Utf16Lines::range`] does.
    pub fn span(&self, text: &Text, lines: [usize; 2]) -> ([usize; 2], [Position; 2]) {
        let from = lines[0].saturating_sub(1);
        let to = lines[1].max(from);
        let at = [self.position(text, from), self.position(text, to)];
        (self.range(text, lines), at)
    }

    /// Sets `from`/`to` and their positions on every receipt that has
    /// `lines`, and on its closest region.
    pub fn mark(&self, text: &Text, receipts: &mut [crate::edit::Receipt]) {
        for r in receipts {
            if let Some(lines) = r.lines {
                let ([from, to], [a, b]) = self.span(text, lines);
                (r.from, r.to) = (Some(from), Some(to));
                (r.from_pos, r.to_pos) = (Some(a), Some(b));
            }
            if let Some(c) = &mut r.closest {
                ([c.from, c.to], [c.from_pos, c.to_pos]) = self.span(text, c.lines);
            }
        }
    }
}

/// UTF-16 code units of UTF-8 bytes: a lead byte starts one, a 4-byte one
/// (outside the BMP) a surrogate pair; continuation bytes add none.
pub(crate) fn utf16_units(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// [`byte_to_utf16`] for many offsets of one text in one pass over it
/// (outline symbols carry the UTF-16 range of their bytes).
pub fn utf16_offsets(s: &str, bytes: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..bytes.len()).collect();
    crate::order::sort_by_key(&mut order[..], |&i| bytes[i]);
    let mut out = vec![0; bytes.len()];
    let (mut at, mut units) = (0, 0);
    for i in order {
        let mut b = bytes[i].min(s.len());
        while !s.is_char_boundary(b) {
            b -= 1;
        }
        units += utf16_units(&s.as_bytes()[at.min(b)..b]);
        at = at.max(b);
        out[i] = units;
    }
    out
}

/// UTF-16 code-unit offset of byte offset `byte` in `s` (clamped, and moved
/// back to a char boundary).
pub fn byte_to_utf16(s: &str, byte: usize) -> usize {
    let mut b = byte.min(s.len());
    while !s.is_char_boundary(b) {
        b -= 1;
    }
    s[..b].chars().map(char::len_utf16).sum()
}

/// Byte offset of UTF-16 offset `u16off` in `s`; an offset inside a surrogate
/// pair or past the end moves to the next char boundary / the end.
pub fn utf16_to_byte(s: &str, u16off: usize) -> usize {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        if units >= u16off {
            return i;
        }
        units += c.len_utf16();
    }
    s.len()
}

/// CRC-32 of a whole text (the `file-crc` check of the `lines` format).
pub fn file_crc(text: &str) -> u32 {
    crate::crc::hash(text.as_bytes())
}

pub use crate::crc::parse_crc;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_masks_agree() {
        // Every byte position with and without a newline, and bytes that
        // differ from `\n` in one bit (the SWAR test's near misses).
        for k in 0..64 {
            for fill in [0u8, b'\n' ^ 1, b'\n' ^ 0x80, b'\r', 0xff] {
                let mut block = [fill; 64];
                block[k] = b'\n';
                block[(k * 7 + 3) % 64] = b'\n';
                let expected = (1u64 << k) | (1u64 << ((k * 7 + 3) % 64));
                assert_eq!(Swar.mask(&block), expected, "{k} {fill}");
                #[cfg(target_arch = "x86_64")]
                {
                    // SAFETY: SSE2 is part of every x86-64 CPU.
                    assert_eq!(unsafe { sse2_newlines(&block) }, expected, "{k} {fill}");
                }
            }
        }
    }

    /// Line starts counted by hand in UTF-16 units: `é` and `漢` are one
    /// unit each, `🎉` two, `\r\n` two.
    #[test]
    fn utf16_lines_count_code_units() {
        let src = "é🎉\r\n漢字\nlast";
        let t = Text::new(src);
        let u = Utf16Lines::new(&t);
        assert_eq!(u.range(&t, [1, 1]), [0, 5]);
        assert_eq!(u.range(&t, [2, 2]), [5, 8]);
        assert_eq!(u.range(&t, [3, 3]), [8, 12]);
        assert_eq!(u.range(&t, [2, 3]), [5, 12]);
        // An insertion before line 2, and past the end.
        assert_eq!(u.range(&t, [2, 1]), [5, 5]);
        assert_eq!(u.range(&t, [4, 3]), [12, 12]);
        let total: usize = src.chars().map(char::len_utf16).sum();
        assert_eq!(total, 12);
    }

    proptest::proptest! {
        /// Every line start equals the UTF-16 length of the text before
        /// it (ASCII and not, with or without a final newline).
        #[test]
        fn utf16_lines_are_the_prefix_lengths(text in "(([a-z ]{0,5}|\\PC{0,3})(\n|\r\n)?){0,12}") {
            let t = Text::new(&text);
            let u = Utf16Lines::new(&t);
            let mut at = 0;
            for (i, line) in text.split_inclusive('\n').enumerate() {
                proptest::prop_assert_eq!(u.line_start(&t, i), at);
                at += line.encode_utf16().count();
            }
            proptest::prop_assert_eq!(u.line_start(&t, usize::MAX), at);
        }
    }

    #[test]
    fn utf16_offsets_agree_with_one_at_a_time() {
        let src = "a🎉\r\n漢x";
        let bytes = [9, 0, 5, 2, 100, 1];
        let want: Vec<usize> = bytes.iter().map(|&b| byte_to_utf16(src, b)).collect();
        assert_eq!(utf16_offsets(src, &bytes), want);
        assert_eq!(want, vec![5, 0, 3, 1, 7, 1]);
    }

    #[test]
    fn utf16_lines_skip_a_bom_and_handle_empty_text() {
        let t = Text::new("\u{feff}ab\n");
        assert_eq!(Utf16Lines::new(&t).range(&t, [1, 1]), [1, 4]);
        let empty = Text::new("");
        assert_eq!(Utf16Lines::new(&empty).range(&empty, [1, 0]), [0, 0]);
    }

    #[test]
    fn keeps_mixed_endings_and_final_newline() {
        let src = "a\r\nb\nc";
        let t = Text::new(src);
        assert_eq!(t.lines(), vec!["a", "b", "c"]);
        assert_eq!((t.eol(0), t.eol(1), t.eol(2)), ("\r\n", "\n", ""));
        assert!(!t.ends_with_newline());
        assert!(Text::new("x\n").ends_with_newline());
        assert!(Text::new("").ends_with_newline());
        assert_eq!(Text::new("").len(), 0);
    }

    #[test]
    fn bom_is_not_content() {
        let t = Text::new("\u{feff}x\ny\n");
        assert!(t.has_bom());
        assert_eq!(t.lines(), vec!["x", "y"]);
        assert_eq!(t.byte_range(0..1), 3..5);
    }

    #[test]
    fn lone_cr_stays_in_content() {
        let t = Text::new("a\rb\n");
        assert_eq!(t.lines(), vec!["a\rb"]);
    }

    #[test]
    fn dominant_eol_counts() {
        assert_eq!(Text::new("a\r\nb\r\nc\n").dominant_eol(), "\r\n");
        assert_eq!(Text::new("a\nb\r\n").dominant_eol(), "\n");
    }

    #[test]
    fn offsets_round_trip() {
        let src = "héllo\nwörld 😀\n";
        let t = Text::new(src);
        let off = t.offset(1, 3);
        assert_eq!(t.line_col(off), (1, 3));
        let emoji = src.find('😀').unwrap();
        assert_eq!(byte_to_utf16(src, emoji), 12);
        assert_eq!(utf16_to_byte(src, 12), emoji);
        assert_eq!(byte_to_utf16(src, src.len()), 15);
        // Inside the surrogate pair: moves to the next boundary.
        assert_eq!(utf16_to_byte(src, 13), emoji + 4);
    }

    proptest::proptest! {
        /// Each line's ranges, derived from where its content lies, are
        /// those of a plain scan for `\n` (a `\r` before it is part of the
        /// terminator), and every offset is found on its line.
        #[test]
        fn spans_and_offsets_are_a_plain_scan(text in "\u{feff}?(([a-z ]{0,4}|\r|é)(\n|\r\n)?){0,10}") {
            let t = Text::new(&text);
            let body = if text.starts_with('\u{feff}') { 3 } else { 0 };
            let mut expected = vec![];
            let mut start = body;
            while start < text.len() {
                let end = text[start..].find('\n').map_or(text.len(), |k| start + k + 1);
                let nl = text[start..end].ends_with('\n');
                let cr = nl && text[start..end - 1].ends_with('\r');
                expected.push(LineSpan { start, content_end: end - usize::from(nl) - usize::from(cr), end });
                start = end;
            }
            let spans: Vec<LineSpan> = (0..t.len()).map(|i| t.span(i)).collect();
            proptest::prop_assert_eq!(&spans, &expected);
            for (i, s) in expected.iter().enumerate() {
                proptest::prop_assert_eq!(t.eol(i), &text[s.content_end..s.end]);
                for b in s.start..s.end {
                    proptest::prop_assert_eq!(t.line_col(b), (i, b - s.start));
                }
            }
            proptest::prop_assert_eq!(t.ends_with_newline(), expected.last().is_none_or(|s| s.end > s.content_end));
            let ends = |e: &str| expected.iter().any(|s| &text[s.content_end..s.end] == e);
            proptest::prop_assert_eq!(t.mixed_eol(), ends("\n") && ends("\r\n"));
        }
    }

    #[test]
    fn byte_ranges() {
        let t = Text::new("a\nbb\nccc");
        assert_eq!(t.byte_range(1..2), 2..5);
        assert_eq!(t.byte_range(2..3), 5..8);
        assert_eq!(t.byte_range(3..3), 8..8);
        assert_eq!(t.byte_range(0..0), 0..0);
    }
}
