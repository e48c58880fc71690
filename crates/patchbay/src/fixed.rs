//! A float as decimal text with a fixed number of digits after the point
//! (what `format!("{:.2}", x)` writes), through integer formatting: the
//! float formatting of `core` (Grisu with a Dragon4 fallback) is 16 KB of
//! the WebAssembly module, and the crate only ever writes percentages and
//! means this way.

/// `x` rounded to `decimals` (at most 6) digits after the point, ties to
/// even as `{:.N}` rounds them.
pub(crate) fn fixed(x: f64, decimals: u32) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    let scale = 10u64.pow(decimals.min(6));
    let (a, s) = (x.abs(), scale as f64);
    let k = (a * s).floor();
    if k >= 1e15 {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    // Whether `a·s` lies above, below or on `k + ½`, decided on the exact
    // product (one rounding: a fused multiply-add), not on `a * s`, whose
    // rounding can land on the half (909.845 · 100 is 90984.5 in `f64`,
    // while 909.845 itself is a little more, and `{:.2}` writes 909.85).
    let d = a.mul_add(s, -(k + 0.5));
    let up = d > 0.0 || (d == 0.0 && k % 2.0 == 1.0);
    let v = (k + f64::from(u8::from(up))) as u64;
    let sign = if x.is_sign_negative() { "-" } else { "" };
    match decimals.min(6) {
        0 => format!("{sign}{v}"),
        d => format!(
            "{sign}{}.{:0width$}",
            v / scale,
            v % scale,
            width = d as usize
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::fixed;

    #[test]
    fn edges() {
        assert_eq!(fixed(0.0, 0), "0");
        assert_eq!(fixed(99.5, 0), format!("{:.0}", 99.5));
        assert_eq!(fixed(0.125, 2), format!("{:.2}", 0.125));
        assert_eq!(fixed(909.845, 2), "909.85");
        assert_eq!(fixed(12.0, 1), "12.0");
        assert_eq!(fixed(f64::NAN, 1), "NaN");
        assert_eq!(fixed(f64::INFINITY, 1), "inf");
        assert_eq!(fixed(-1.25, 1), format!("{:.1}", -1.25));
    }

    proptest::proptest! {
        /// The same text as `{:.N}` for the values the crate writes:
        /// percentages, ratios and means.
        #[test]
        fn it_writes_what_format_writes(x in 0.0f64..1e6, d in 0u32..3) {
            let expected = match d {
                0 => format!("{x:.0}"),
                1 => format!("{x:.1}"),
                _ => format!("{x:.2}"),
            };
            proptest::prop_assert_eq!(fixed(x, d), expected);
        }

        /// Values a hundredth apart, where the ties are.
        #[test]
        fn hundredths_round_as_format_does(n in 0u32..1_000_000) {
            let x = n as f64 / 1000.0;
            proptest::prop_assert_eq!(fixed(x, 2), format!("{x:.2}"));
            proptest::prop_assert_eq!(fixed(x * 100.0, 0), format!("{:.0}", x * 100.0));
        }
    }
}
