//! Which file a part patches (`intuit_diff_type`'s choice of `inname`,
//! and the output name of git renames and copies).

use super::pch::Patch;

/// The file `patch` reads, and which of the names it is: the best of the
/// named files that exist; if none does, the part's last name when it
/// deletes, the best name when it creates; else none ("can't find file to
/// patch", the hunks are ignored).
pub(super) fn input(p: &Patch, exists: &dyn Fn(&str) -> bool) -> Option<(usize, String)> {
    let key = |n: &Option<String>| n.as_deref().and_then(usable);
    let mut names = [key(&p.names[0]), key(&p.names[1]), key(&p.names[2])];
    // The `Index:` name only counts without the others.
    if p.names[0].is_some() || p.names[1].is_some() {
        names[2] = None;
    }
    let present: Vec<bool> = names
        .iter()
        .map(|n| n.as_deref().is_some_and(exists))
        .collect();
    let pick = |i: usize| names[i].clone().map(|n| (i, n));
    if let Some(i) = best(&names, &|i| present[i]) {
        return pick(i);
    }
    let last = (0..3).rev().find(|&i| names[i].is_some());
    let usable = |i: usize| names[i].is_some();
    // "The next patch would delete the file, which does not exist!": with
    // -f patch goes on with that name.
    if let Some(i) = last.filter(|_| p.nonexistent[1] > 0 && !creation_of_empty(p)) {
        return pick(i);
    }
    if p.nonexistent[0] > 0 {
        return pick(best(&names, &usable)?);
    }
    None
}

/// "Cannot rename file without two valid file names": a rename or copy
/// whose file is not one of its two names, or without a new name.
pub(super) fn cannot_move(p: &Patch, chosen: Option<usize>) -> bool {
    let moves = p.renames() || p.copies();
    moves && (!matches!(chosen, Some(0 | 1)) || new_name(p).is_none())
}

fn new_name(p: &Patch) -> Option<String> {
    usable(p.names[1].as_deref()?)
}

/// The name as a key of the files; names that leave the folder are
/// "potentially dangerous" and never used.
fn usable(n: &str) -> Option<String> {
    let safe = !n.split('/').any(|c| c == "..");
    crate::apply::paths::normalize(n).ok().filter(|_| safe)
}

/// `maybe_reverse`'s exception: git says the old side is empty and the
/// new one absent.
fn creation_of_empty(p: &Patch) -> bool {
    p.nonexistent[1] == 1 && p.nonexistent[0] == 2
}

/// The file `patch` writes: the new name for git renames and copies.
pub(super) fn output(p: &Patch, inname: &str) -> String {
    match (new_name(p), p.renames() || p.copies()) {
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
