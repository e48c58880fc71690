//! Joining the outlines of several views of one file (the C and C++
//! configurations of `preproc.rs`) into one outline.
//!
//! The first view's symbols all stay. A symbol of a later view is the same
//! symbol when one already listed has its span, or its qualified name and
//! kind and an overlapping span (a class both views parse). Otherwise it is
//! added only where it fits the outline as it is: it crosses no listed
//! symbol's span, and the innermost listed symbol around it is the parent
//! it had in its own view (or, for a symbol whose parent is new too, the
//! one around that parent). So a view that parses a region worse (a class
//! lost to a stray brace, a namespace it did not see) adds nothing there.
//! The result is in document order, parents before members, with parents
//! and depths renumbered.
//!
//! Cost: `O((n + m) log(n + m))` for `n` listed and `m` new symbols: one
//! sort and two sweeps with a stack over the spans, which nest.

use crate::symbol::{Kind, Symbol};
use crate::walk::MAX_DEPTH;
use std::collections::HashMap;

/// Where a symbol of the later view went.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// The same as this listed symbol.
    Same(usize),
    /// Added as this listed symbol.
    Added(usize),
    Dropped,
}

/// `listed` (one outline, or views already joined) with the symbols of
/// `later` (another view's outline) that fit, as described above.
pub(crate) fn join(mut listed: Vec<Symbol>, later: Vec<Symbol>) -> Vec<Symbol> {
    let old = listed.len();
    let spans: Vec<[usize; 2]> = listed.iter().map(|s| s.span.bytes).collect();
    let same = same_symbols(&listed, &later);
    let new_spans: Vec<[usize; 2]> = later.iter().map(|s| s.span.bytes).collect();
    let around = enclosing(&spans, &new_spans);
    let mut fate = vec![Fate::Dropped; later.len()];
    for (i, mut s) in later.into_iter().enumerate() {
        if let Some(m) = same[i] {
            fate[i] = Fate::Same(m);
            continue;
        }
        let Around::Inside(outer) = around[i] else {
            continue;
        };
        // Its parent in its view must be the listed symbol around it, or
        // be added itself with nothing listed between the two.
        let parent = match s.parent.map(|p| (p, fate[p])) {
            None if outer.is_none() => None,
            Some((_, Fate::Same(m))) if outer == Some(m) => Some(m),
            Some((p, Fate::Added(n))) if around[p] == around[i] => Some(n),
            _ => continue,
        };
        s.depth = parent.map_or(0, |p| listed[p].depth + 1);
        if s.depth >= MAX_DEPTH {
            continue;
        }
        s.parent = parent;
        fate[i] = Fate::Added(listed.len());
        listed.push(s);
    }
    if listed.len() > old {
        reorder(&mut listed);
    }
    listed
}

/// A listed symbol's span and index: (start, end, index).
type Listed = (usize, usize, usize);

/// For each symbol of `later`, the listed symbol it is (see the module
/// docs), if any.
fn same_symbols(listed: &[Symbol], later: &[Symbol]) -> Vec<Option<usize>> {
    let by_span: HashMap<[usize; 2], usize> = listed
        .iter()
        .enumerate()
        .map(|(i, s)| (s.span.bytes, i))
        .collect();
    let mut by_name: HashMap<(&str, Kind), Vec<Listed>> = HashMap::new();
    for (i, s) in listed.iter().enumerate() {
        let [a, b] = s.span.bytes;
        by_name
            .entry((s.qualified.as_str(), s.kind))
            .or_default()
            .push((a, b, i));
    }
    for v in by_name.values_mut() {
        v.sort_unstable();
    }
    later
        .iter()
        .map(|s| {
            if let Some(&i) = by_span.get(&s.span.bytes) {
                return Some(i);
            }
            // Symbols of one name and kind do not nest: the last one that
            // starts before this one ends is the only one it can overlap.
            let [a, b] = s.span.bytes;
            let v = by_name.get(&(s.qualified.as_str(), s.kind))?;
            let before = v.partition_point(|&(start, _, _)| start < b);
            let &(_, end, i) = v.get(before.checked_sub(1)?)?;
            (end > a).then_some(i)
        })
        .collect()
}

/// Where a new span lies among the listed ones.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Around {
    /// Within this innermost listed span (`None`: at the top level).
    Inside(Option<usize>),
    /// Partly inside a listed span and partly outside it.
    Crosses,
}

/// For each of `new`, where it lies among `listed` (spans that nest or are
/// disjoint, as a parse tree's are).
fn enclosing(listed: &[[usize; 2]], new: &[[usize; 2]]) -> Vec<Around> {
    let mut out = innermost(listed, new);
    // A listed span that starts inside a new one and ends after it: the
    // same sweep on the mirrored axis finds it as one that ends inside.
    let mirror = |v: &[[usize; 2]]| -> Vec<[usize; 2]> {
        v.iter()
            .map(|&[a, b]| [usize::MAX - b, usize::MAX - a])
            .collect()
    };
    for (o, m) in out.iter_mut().zip(innermost(&mirror(listed), &mirror(new))) {
        if m == Around::Crosses {
            *o = Around::Crosses;
        }
    }
    out
}

/// For each of `new`: the innermost of `listed` that contains its start
/// and its end, or `Crosses` if the innermost one that contains its start
/// ends before it does.
fn innermost(listed: &[[usize; 2]], new: &[[usize; 2]]) -> Vec<Around> {
    // Longer spans first among those that start together: outer first.
    let key = |&[a, b]: &[usize; 2]| (a, std::cmp::Reverse(b));
    let mut olds: Vec<usize> = (0..listed.len()).collect();
    olds.sort_by_key(|&i| key(&listed[i]));
    let mut news: Vec<usize> = (0..new.len()).collect();
    news.sort_by_key(|&i| key(&new[i]));
    let mut out = vec![Around::Inside(None); new.len()];
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0;
    for i in news {
        let [a, b] = new[i];
        while let Some(&j) = olds.get(next) {
            let [c, d] = listed[j];
            if c > a || (c == a && d < b) {
                break;
            }
            while stack.last().is_some_and(|&t| listed[t][1] <= c) {
                stack.pop();
            }
            stack.push(j);
            next += 1;
        }
        while stack.last().is_some_and(|&t| listed[t][1] <= a) {
            stack.pop();
        }
        out[i] = match stack.last() {
            Some(&t) if listed[t][1] < b => Around::Crosses,
            top => Around::Inside(top.copied()),
        };
    }
    out
}

/// Sorts symbols into document order (outer first among those that start
/// together, then the order they had) and renumbers parents and depths.
fn reorder(symbols: &mut Vec<Symbol>) {
    let mut order: Vec<usize> = (0..symbols.len()).collect();
    order.sort_by_key(|&i| {
        let [a, b] = symbols[i].span.bytes;
        (a, std::cmp::Reverse(b), i)
    });
    let mut at = vec![0; symbols.len()];
    for (new, &old) in order.iter().enumerate() {
        at[old] = new;
    }
    let mut taken: Vec<Option<Symbol>> = std::mem::take(symbols).into_iter().map(Some).collect();
    for &old in &order {
        let Some(mut s) = taken[old].take() else {
            continue;
        };
        s.parent = s.parent.map(|p| at[p]);
        s.depth = s
            .parent
            .and_then(|p| symbols.get(p))
            .map_or(0, |q| q.depth + 1);
        symbols.push(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_spans_inside_around_and_across_listed_ones() {
        // Listed: a file-wide namespace, two classes in it, a method in the first.
        let listed = [[0, 100], [10, 40], [50, 90], [20, 30]];
        let new = [
            [12, 18],  // in the first class
            [41, 45],  // in the namespace, between the classes
            [35, 60],  // across both classes
            [95, 120], // across the namespace's end
            [110, 130],
            [5, 100], // around both classes, inside the namespace
            [20, 30], // the method's own span (a listed symbol)
            [0, 200], // around everything
            [25, 35], // across the method's end
        ];
        assert_eq!(
            enclosing(&listed, &new),
            [
                Around::Inside(Some(1)),
                Around::Inside(Some(0)),
                Around::Crosses,
                Around::Crosses,
                Around::Inside(None),
                Around::Inside(Some(0)),
                Around::Inside(Some(3)),
                Around::Inside(None),
                Around::Crosses,
            ]
        );
    }
}
