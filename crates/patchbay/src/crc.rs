//! CRC-32 (IEEE, reflected, as zlib and crc32fast): the crate's one home
//! for it. [`hash`] for whole texts (the `lines` format's file CRC and line
//! hashes); short byte ranges for the hashline tags, one table look-up a
//! byte, all independent.
//!
//! The CRC is affine: with `R(s, d)` the register after the bytes `d` from
//! the register `s` (no inversions), `R(s, d) = R(s, 0ⁿ) ^ R(0, d)`. So the
//! CRC of `d` from any starting CRC `a` is `R(0, d) ^ crc(a, 0ⁿ)`: a part
//! that depends on the bytes only ([`raw`], which needs no starting state,
//! so its first block is folded without one) and a part that depends on the
//! length only, which for the two starting CRCs of a tag (0 and
//! [`WIDE_SEED`]) is a table ([`ZEROS`], [`WIDE_ZEROS`]). The wide tag's
//! second CRC is then one XOR, not a second pass over the line.

/// Parses a CRC-32 written as 1 to 8 hex digits, with or without `0x`.
pub fn parse_crc(s: &str) -> Option<u32> {
    let h = s.trim();
    let h = h
        .strip_prefix("0x")
        .or_else(|| h.strip_prefix("0X"))
        .unwrap_or(h);
    if h.is_empty() || h.len() > 8 || !h.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(h, 16).ok()
}

/// Second CRC-32 initial state for wide tags (any fixed odd constant).
pub(crate) const WIDE_SEED: u32 = 0x9e37_79b9;

/// From this length on, a range goes to crc32fast (carry-less multiply on
/// CPUs that have it, which only pays off for long inputs); shorter ones
/// (nearly every source line) take the tables.
pub(crate) const LONG: usize = 128;

type Tables = [[u32; 256]; 16];

crate::table::table! {
    /// Tables for slicing by 16: `tables_ref()[k][b]` is `R(0, [b, 0ᵏ])`,
    /// what byte `b` leaves in a zero register after `k` more zero bytes. A
    /// block of 16 bytes is the XOR of one independent look-up a byte: no
    /// chain of dependent look-ups, as a byte-at-a-time loop (crc32fast's
    /// path for short inputs) has.
    fn tables_ref() -> &Tables = tables();
}

const fn tables() -> Tables {
    let mut t = [[0u32; 256]; 16];
    let mut i = 0;
    while i < 256 {
        t[0][i] = byte_step(i as u32);
        i += 1;
    }
    let mut j = 1;
    while j < 16 {
        let mut i = 0;
        while i < 256 {
            let p = t[j - 1][i];
            t[j][i] = (p >> 8) ^ t[0][(p & 0xff) as usize];
            i += 1;
        }
        j += 1;
    }
    t
}

/// The register's low byte `c` pushed through one byte step (bitwise).
const fn byte_step(mut c: u32) -> u32 {
    let mut k = 0;
    while k < 8 {
        c = if c & 1 != 0 {
            0xEDB8_8320 ^ (c >> 1)
        } else {
            c >> 1
        };
        k += 1;
    }
    c
}

/// `ZEROS[n]` = crc(0, 0ⁿ), the CRC-32 of `n` zero bytes: what the
/// initial and final inversions add to a range of `n` bytes.
pub(crate) static ZEROS: [u32; LONG] = zeros_table(0);
/// `WIDE_ZEROS[n]` = crc(WIDE_SEED, 0ⁿ), the same for the wide tag's seed.
pub(crate) static WIDE_ZEROS: [u32; LONG] = zeros_table(WIDE_SEED);

const fn zeros_table(seed: u32) -> [u32; LONG] {
    let mut t = [0u32; LONG];
    let mut c = !seed;
    let mut n = 0;
    while n < LONG {
        t[n] = !c;
        c = (c >> 8) ^ byte_step(c & 0xff);
        n += 1;
    }
    t
}

/// `R(0, block)` for 16 bytes (little-endian in `v`: the first byte is
/// the low one).
#[inline(always)]
fn fold16(t: &Tables, v: u128) -> u32 {
    let b = v.to_le_bytes();
    (t[15][b[0] as usize] ^ t[14][b[1] as usize] ^ t[13][b[2] as usize] ^ t[12][b[3] as usize])
        ^ (t[11][b[4] as usize] ^ t[10][b[5] as usize] ^ t[9][b[6] as usize] ^ t[8][b[7] as usize])
        ^ (t[7][b[8] as usize] ^ t[6][b[9] as usize] ^ t[5][b[10] as usize] ^ t[4][b[11] as usize])
        ^ (t[3][b[12] as usize]
            ^ t[2][b[13] as usize]
            ^ t[1][b[14] as usize]
            ^ t[0][b[15] as usize])
}

/// `R(0, block)` for 8 bytes: half the look-ups of [`fold16`], for a head
/// that fits (the other eight would be of zero bytes, whose entries are
/// zero).
#[inline(always)]
fn fold8(t: &Tables, v: u64) -> u32 {
    let b = v.to_le_bytes();
    (t[7][b[0] as usize] ^ t[6][b[1] as usize] ^ t[5][b[2] as usize] ^ t[4][b[3] as usize])
        ^ (t[3][b[4] as usize] ^ t[2][b[5] as usize] ^ t[1][b[6] as usize] ^ t[0][b[7] as usize])
}

#[inline(always)]
fn load8(buf: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buf[at..at + 8].try_into().expect("8 bytes"))
}

#[inline(always)]
fn load16(buf: &[u8], at: usize) -> u128 {
    u128::from_le_bytes(buf[at..at + 16].try_into().expect("16 bytes"))
}

/// `buf[e - n..e]` (n from 1 to 8) at the top of a `u64`, zeros below:
/// one load ending at `e` (reaching back into what precedes the range,
/// masked away) where the buffer has the room.
#[inline(always)]
fn head8(buf: &[u8], e: usize, n: usize) -> u64 {
    if e >= 8 {
        load8(buf, e - 8) & (u64::MAX << (8 * (8 - n)))
    } else {
        let mut b = [0u8; 8];
        b[8 - n..].copy_from_slice(&buf[e - n..e]);
        u64::from_le_bytes(b)
    }
}

/// [`head8`] for `n` from 1 to 16, in a `u128`.
#[inline(always)]
fn head16(buf: &[u8], e: usize, n: usize) -> u128 {
    if e >= 16 {
        load16(buf, e - 16) & (u128::MAX << (8 * (16 - n)))
    } else {
        let mut b = [0u8; 16];
        b[16 - n..].copy_from_slice(&buf[e - n..e]);
        u128::from_le_bytes(b)
    }
}

/// `R(0, buf[s..e])`: the range's part of any CRC of it. Leading zero
/// bytes leave a zero register zero, so the first `len % 16` bytes are a
/// block padded with zeros in front; each following 16-byte block takes the
/// register in its first four bytes.
#[inline(always)]
pub(crate) fn raw(buf: &[u8], s: usize, e: usize) -> u32 {
    let t = tables_ref();
    let head = (e - s) % 16;
    let mut c = if head > 8 {
        fold16(t, head16(buf, s + head, head))
    } else if head > 0 {
        fold8(t, head8(buf, s + head, head))
    } else {
        0
    };
    let mut p = s + head;
    while p < e {
        c = fold16(t, load16(buf, p) ^ c as u128);
        p += 16;
    }
    c
}

/// [`raw`] by carry-less multiplication, on x86-64 CPUs that have it: a
/// 16-byte block is two multiplies folded into the next, and the last one
/// is reduced to 32 bits with crc32fast's constants and steps (Intel's
/// "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ"), instead
/// of 16 table look-ups a block, each with its byte to extract.
#[cfg(target_arch = "x86_64")]
pub(crate) mod clmul {
    use super::{head16, load16};
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_clmulepi64_si128, _mm_cvtsi128_si32, _mm_set_epi32,
        _mm_set_epi64x, _mm_srli_si128, _mm_xor_si128,
    };

    const K3: i64 = 0x1_7519_97d0;
    const K4: i64 = 0x0_ccaa_009e;
    const K5: i64 = 0x1_63cd_6124;
    const P_X: i64 = 0x1_DB71_0641;
    const U_PRIME: i64 = 0x1_F701_1641;

    /// A block as the vector register (SSE2, always there on x86-64).
    #[inline]
    #[target_feature(enable = "sse2")]
    fn vector(v: u128) -> __m128i {
        _mm_set_epi64x((v >> 64) as i64, v as i64)
    }

    /// The blocks `a` then `b` as one block with the same remainder.
    #[inline]
    #[target_feature(enable = "pclmulqdq")]
    fn fold(a: __m128i, b: __m128i) -> __m128i {
        let k = _mm_set_epi64x(K4, K3);
        let t1 = _mm_clmulepi64_si128(a, k, 0x00);
        let t2 = _mm_clmulepi64_si128(a, k, 0x11);
        _mm_xor_si128(_mm_xor_si128(b, t1), t2)
    }

    /// `R(0, x)` of one 16-byte block: 128 bits to 64, then Barrett's
    /// reduction to 32 (the bit-reflected variant: the upper half).
    #[inline]
    #[target_feature(enable = "pclmulqdq")]
    fn reduce(x: __m128i) -> u32 {
        let low32 = _mm_set_epi32(0, 0, 0, !0);
        let k3k4 = _mm_set_epi64x(K4, K3);
        let x = _mm_xor_si128(_mm_clmulepi64_si128(x, k3k4, 0x10), _mm_srli_si128(x, 8));
        let x = _mm_xor_si128(
            _mm_clmulepi64_si128(_mm_and_si128(x, low32), _mm_set_epi64x(0, K5), 0x00),
            _mm_srli_si128(x, 4),
        );
        let pu = _mm_set_epi64x(U_PRIME, P_X);
        let t1 = _mm_clmulepi64_si128(_mm_and_si128(x, low32), pu, 0x10);
        let t2 = _mm_clmulepi64_si128(_mm_and_si128(t1, low32), pu, 0x00);
        _mm_cvtsi128_si32(_mm_srli_si128(_mm_xor_si128(x, t2), 4)) as u32
    }

    /// [`super::raw`]: the same blocks (the first `len % 16` bytes padded
    /// with zeros in front), multiplied instead of looked up.
    #[inline]
    #[target_feature(enable = "pclmulqdq")]
    pub(crate) fn raw(buf: &[u8], s: usize, e: usize) -> u32 {
        let head = (e - s) % 16;
        let mut x = vector(if head > 0 {
            head16(buf, s + head, head)
        } else {
            0
        });
        let mut p = s + head;
        while p < e {
            x = fold(x, vector(load16(buf, p)));
            p += 16;
        }
        reduce(x)
    }
}

/// `R(c, 0ⁿ)`: the register `c` carried through `n` zero bytes. Only for
/// a starting CRC that has no table (a prefix's, with `with_line`).
fn advance(mut c: u32, n: usize) -> u32 {
    let t = tables_ref();
    for _ in 0..n / 16 {
        c = fold16(t, c as u128);
    }
    let h = n % 16;
    if h == 0 {
        return c;
    }
    // The register enters an `h`-byte block of zeros at its start; what of
    // it lies past the block (when `h < 4`) is still to be shifted out.
    let rest = if h < 4 { c >> (8 * h) } else { 0 };
    rest ^ fold16(t, (c as u128) << (8 * (16 - h)))
}

/// The CRC-32 of `buf[s..e]` continued from the CRC `crc` of what came
/// before (as `crc32fast::Hasher::new_with_initial`), for any start.
pub(crate) fn resume(crc: u32, buf: &[u8], s: usize, e: usize) -> u32 {
    let n = e - s;
    if n >= LONG {
        return long(crc, &buf[s..e]);
    }
    // crc(a, d) = R(0, d) ^ R(a, 0ⁿ) ^ crc(0, 0ⁿ): the inversions are
    // linear too (`!R(!a, z) = R(a, z) ^ !R(!0, z)`).
    raw(buf, s, e) ^ advance(crc, n) ^ ZEROS[n]
}

/// The CRC-32 of a long range, out of line (rare): natively crc32fast's
/// SIMD path.
#[cfg(not(target_arch = "wasm32"))]
#[inline(never)]
pub(crate) fn long(crc: u32, data: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial(crc);
    h.update(data);
    h.finalize()
}

/// In WebAssembly, [`sliced`]: crc32fast would run the same slicing by 16
/// there, with a second copy of [`tables_ref`] (16 KB that do not compress)
/// in the module.
#[cfg(target_arch = "wasm32")]
pub(crate) fn long(crc: u32, data: &[u8]) -> u32 {
    sliced(crc, data)
}

/// The CRC-32 of `data` continued from `crc`, the register carried through
/// 16 bytes a step ([`fold16`] with the register in the block's first four
/// bytes) and the last `len % 16` bytes one at a time.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn sliced(crc: u32, data: &[u8]) -> u32 {
    let t = tables_ref();
    let mut c = !crc;
    let mut blocks = data.chunks_exact(16);
    for b in &mut blocks {
        c = fold16(
            t,
            u128::from_le_bytes(b.try_into().expect("16 bytes")) ^ c as u128,
        );
    }
    for &b in blocks.remainder() {
        c = (c >> 8) ^ t[0][((c ^ b as u32) & 0xff) as usize];
    }
    !c
}

/// The CRC-32 of a whole byte string (zlib's, crc32fast's).
pub(crate) fn hash(data: &[u8]) -> u32 {
    long(0, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(seed: u32, data: &[u8]) -> u32 {
        let mut h = crc32fast::Hasher::new_with_initial(seed);
        h.update(data);
        h.finalize()
    }

    #[test]
    fn the_sliced_crc_is_crc32fast() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7919 % 251) as u8).collect();
        for len in (0..40).chain([127, 128, 129, 255, 256, 999, 1000]) {
            for seed in [0, 1, 0xffff_ffff, WIDE_SEED] {
                assert_eq!(
                    sliced(seed, &data[..len]),
                    reference(seed, &data[..len]),
                    "{len} {seed:x}"
                );
            }
        }
        assert_eq!(hash(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn every_length_start_and_offset_is_crc32fast() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7919 % 251) as u8).collect();
        for s in [0, 1, 7, 15, 16, 17] {
            for len in 0..data.len() - s {
                let d = &data[s..s + len];
                for seed in [0, 1, 0xffff_ffff, WIDE_SEED, 0x1234_5678] {
                    let r = reference(seed, d);
                    assert_eq!(resume(seed, &data, s, s + len), r, "{s} {len} {seed:x}");
                    // A copy of its own: no bytes around the range to load.
                    assert_eq!(resume(seed, d, 0, len), r, "{s} {len} {seed:x}");
                }
                if len < LONG {
                    let raw = raw(&data, s, s + len);
                    #[cfg(target_arch = "x86_64")]
                    if std::arch::is_x86_feature_detected!("pclmulqdq") {
                        // SAFETY: the CPU has the one feature the function
                        // is compiled with (detected just above).
                        assert_eq!(unsafe { clmul::raw(&data, s, s + len) }, raw);
                    }
                    assert_eq!(raw ^ ZEROS[len], reference(0, d));
                    assert_eq!(raw ^ WIDE_ZEROS[len], reference(WIDE_SEED, d));
                }
            }
        }
    }
}
