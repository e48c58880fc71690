//! Sorting, written once for the whole crate.
//!
//! The standard library's sort is generic over the element and the
//! comparator, so each call site with its own closure becomes its own copy
//! of the sort (about 7 KB of WebAssembly each; so many copies would be a
//! tenth of the core module). In WebAssembly every sort here therefore sorts the
//! indexes `0..n` through one comparator type, a `&mut dyn FnMut`, which is
//! one copy of the sort for the whole module, and then moves the elements
//! into that order. Natively the standard sort is used as it is: the
//! binary's size does not matter there and its speed does. Both are the
//! same stable sort, so they give the same order.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, as `v.sort_by(cmp)`.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    #[cfg(target_arch = "wasm32")]
    by_indexes(v, &mut cmp);
    #[cfg(not(target_arch = "wasm32"))]
    v.sort_by(&mut cmp);
}

/// [`sort_by`] in WebAssembly: the indexes sorted, then the elements moved.
/// A few elements (most sorts of a streamed edit) are sorted in place by
/// insertion: no index list to allocate, and a few hundred bytes of code.
#[cfg(any(target_arch = "wasm32", test))]
fn by_indexes<T>(v: &mut [T], cmp: &mut dyn FnMut(&T, &T) -> Ordering) {
    if v.len() <= SMALL {
        for i in 1..v.len() {
            let mut j = i;
            // Only past a greater one: equal elements keep their order.
            while j > 0 && cmp(&v[j - 1], &v[j]) == Ordering::Greater {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
        return;
    }
    let order = {
        let v = &*v;
        sorted_indexes(v.len(), &mut |a, b| cmp(&v[a], &v[b]))
    };
    permute(v, order);
}

/// Sorts `v` stably by `key`, as `v.sort_by_key(key)`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` in its own order, as `v.sort()`.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Up to this many elements, [`by_indexes`] sorts by insertion.
#[cfg(any(target_arch = "wasm32", test))]
const SMALL: usize = 16;

/// The indexes `0..n` stably sorted by `cmp`: the one sort of the module.
#[cfg(any(target_arch = "wasm32", test))]
fn sorted_indexes(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Moves `v[order[i]]` to `i` for every `i`, one cycle of the permutation
/// at a time, by swaps (no element is cloned).
#[cfg(any(target_arch = "wasm32", test))]
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..v.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = order[at];
            order[at] = DONE;
            if from == start {
                break;
            }
            // `v[from]` is still the original there: the cycle has not
            // reached it yet.
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The crate's code (not its tests) sorts only through this module: a
    /// sort called in place would bring its own copy of the sort back into
    /// the WebAssembly module.
    #[test]
    fn the_crate_sorts_only_here() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).expect("src") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let mut files = vec![];
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let calls = [
            ".sort(",
            ".sort_by(",
            ".sort_by_key(",
            ".sort_unstable",
            ".sort_by_cached_key(",
        ];
        let mut found = vec![];
        for f in files {
            let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if ["order.rs", "tests.rs", "test_support.rs"].contains(&name) {
                continue;
            }
            let text = std::fs::read_to_string(&f).expect("source");
            // Up to the file's test module, if it has one.
            let code = text
                .find("#[cfg(test)]\nmod")
                .map_or(&text[..], |k| &text[..k]);
            for (i, line) in code.lines().enumerate() {
                if !line.trim_start().starts_with("//") && calls.iter().any(|c| line.contains(c)) {
                    found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
                }
            }
        }
        assert!(
            found.is_empty(),
            "sort through crate::order:\n{}",
            found.join("\n")
        );
    }

    proptest! {
        /// The WebAssembly path's permutation puts every element where the
        /// order says, for any order.
        #[test]
        fn permute_follows_the_order(order in Just((0..40usize).collect::<Vec<_>>()).prop_shuffle()) {
            let mut v: Vec<String> = (0..40).map(|i| i.to_string()).collect();
            permute(&mut v, order.clone());
            let want: Vec<String> = order.iter().map(|i| i.to_string()).collect();
            prop_assert_eq!(v, want);
        }

        /// The WebAssembly path is the standard stable sort: equal keys
        /// keep their order.
        #[test]
        fn by_indexes_is_the_stable_sort(keys in proptest::collection::vec(0u8..4, 0..60)) {
            let mut v: Vec<(u8, String)> = keys.iter().map(|&k| (k, format!("{k}"))).zip(0..).map(|((k, s), i)| (k, format!("{s}.{i}"))).collect();
            let mut want = v.clone();
            want.sort_by_key(|p| p.0);
            by_indexes(&mut v, &mut |a, b| a.0.cmp(&b.0));
            prop_assert_eq!(v, want);
        }
    }
}
