//! Which file a part patches (`intuit_diff_type`'s choice of `inname`,
//! and the output name of git renames and copies).

use super::pch::Patch;

/// The file `patch` reads: the best of the named files that exist; if
/// none does, the part's first name when it deletes, the best name when it
/// creates; else none ("can't find file to patch", the hunks are ignored).
pub(super) fn input(p: &Patch, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    // Names that leave the folder are "potentially dangerous": never used.
    let key = |n: &Option<String>| {
        let n = n.as_deref()?;
        let safe = !n.split('/').any(|c| c == "..");
        crate::paths::normalize(n).ok().filter(|_| safe)
    };
    let mut names = [key(&p.names[0]), key(&p.names[1]), key(&p.names[2])];
    // The `Index:` name only counts without the others.
    if p.names[0].is_some() || p.names[1].is_some() {
        names[2] = None;
    }
    let present: Vec<bool> = names
        .iter()
        .map(|n| n.as_deref().is_some_and(exists))
        .collect();
    if let Some(i) = best(&names, &|i| present[i]) {
        return names[i].clone();
    }
    let last = (0..3).rev().find(|&i| names[i].is_some());
    let usable = |i: usize| names[i].is_some();
    // "The next patch would delete the file, which does not exist!": with
    // -f patch goes on with that name.
    if let Some(i) = last.filter(|_| p.nonexistent[1] > 0 && !creation_of_empty(p)) {
        return names[i].clone();
    }
    if p.nonexistent[0] > 0 {
        let i = best(&names, &usable)?;
        return names[i].clone();
    }
    None
}

/// `maybe_reverse`'s exception: git says the old side is empty and the
/// new one absent.
fn creation_of_empty(p: &Patch) -> bool {
    p.nonexistent[1] == 1 && p.nonexistent[0] == 2
}

/// The file `patch` writes: the new name for git renames and copies.
pub(super) fn output(p: &Patch, inname: &str) -> String {
    let new = p.names[1]
        .as_deref()
        .and_then(|n| crate::paths::normalize(n).ok());
    match (new, p.rename || p.copy) {
        (Some(n), true) => n,
        _ => inname.to_owned(),
    }
}

/// `best_name`: fewest directories, then the shortest base name, then the
/// shortest name, then the first.
fn best(names: &[Option<String>; 3], ok: &dyn Fn(usize) -> bool) -> Option<usize> {
    let key = |n: &str| {
        let dirs = n.trim_start_matches('/').matches('/').count();
        let base = n.rsplit('/').next().unwrap_or(n).len();
        (dirs, base, n.len())
    };
    (0..3)
        .filter(|&i| ok(i))
        .filter_map(|i| names[i].as_deref().map(|n| (key(n), i)))
        .min()
        .map(|(_, i)| i)
}
