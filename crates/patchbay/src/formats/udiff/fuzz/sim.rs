//! `patch`'s work on one file (`locate_hunk`, `patch_match`, `apply_hunk`
//! of GNU `patch` 2.7.6): lines are compared byte for byte, line breaks
//! included.

use super::super::parse::Prefix;
use super::pch::GHunk;

/// Where `patch` put a hunk, or why it failed it.
pub(super) enum PatchPlace {
    /// The 1-based input line, and the fuzz.
    At(usize, usize),
    /// No place at any fuzz.
    Nowhere,
    /// Found at this line, but before the end of the previous hunk:
    /// "misordered hunks! output would be garbled".
    Misordered(usize),
    /// A creation that lands at line 1 of a file with content.
    Exists,
}

/// The state of `patch` on one file.
pub(super) struct Sim {
    /// The input's lines, each with its line break (the last may lack one).
    pub input: Vec<String>,
    out: Vec<String>,
    pub in_offset: isize,
    pub out_offset: isize,
    /// Input lines already copied or consumed (`last_frozen_line`).
    frozen: usize,
}

impl Sim {
    pub fn new(src: &str) -> Sim {
        Sim {
            input: src.split_inclusive('\n').map(str::to_owned).collect(),
            out: vec![],
            in_offset: 0,
            out_offset: 0,
            frozen: 0,
        }
    }

    pub fn finish(mut self) -> String {
        self.copy_till(self.input.len());
        self.out.concat()
    }

    fn push(&mut self, l: &str) {
        // `patch` ends an unterminated line before writing after it.
        if let Some(last) = self.out.last_mut() {
            if !last.ends_with('\n') {
                last.push('\n');
            }
        }
        self.out.push(l.to_owned());
    }

    fn copy_till(&mut self, upto: usize) {
        while self.frozen < upto.min(self.input.len()) {
            let l = self.input[self.frozen].clone();
            self.push(&l);
            self.frozen += 1;
        }
    }

    /// The hunk located (fuzz 0, then up to the hunk's context, at most 2)
    /// and applied; `creates` fails it at line 1 (the file exists).
    pub fn place(&mut self, h: &GHunk, creates: bool) -> PatchPlace {
        let pat: Vec<&str> = h
            .body
            .iter()
            .filter(|b| b.0 != Prefix::Add)
            .map(|b| b.1.as_str())
            .collect();
        let max_fuzz = 2.min(h.prefix.max(h.suffix)) as isize;
        let (pc, sc) = (h.prefix as isize, h.suffix as isize);
        for fuzz in 0..=max_fuzz {
            if let Some(w) = self.locate(&pat, h.first as isize, pc, sc, fuzz) {
                let w = w.max(1) as usize;
                if creates && w == 1 {
                    return PatchPlace::Exists;
                }
                return match self.apply(h, w) {
                    true => PatchPlace::At(w, fuzz as usize),
                    false => PatchPlace::Misordered(w),
                };
            }
        }
        PatchPlace::Nowhere
    }

    /// `check_line_endings`: the hunk's first old line and input line
    /// `at` differ in CR LF.
    pub fn different_endings(&self, h: &GHunk, at: usize) -> bool {
        let first = h
            .body
            .iter()
            .find(|b| b.0 != Prefix::Add)
            .map(|b| b.1.as_str());
        // Without old lines `patch` looks at its own separator line.
        let p = first.unwrap_or("--- \n");
        let Some(i) = at.checked_sub(1).and_then(|i| self.input.get(i)) else {
            return false;
        };
        !p.is_empty() && p.ends_with("\r\n") != i.ends_with("\r\n")
    }

    /// `patch_match`: the pattern at `at`, fuzz lines ignored.
    fn matches(&self, pat: &[&str], at: isize, pf: isize, sf: isize) -> bool {
        let end = pat.len() as isize - sf;
        (pf..end).all(|p| {
            let i = at + p - 1;
            i >= 0 && (i as usize) < self.input.len() && self.input[i as usize] == pat[p as usize]
        })
    }

    /// `locate_hunk`: the 1-based line where the hunk goes at this fuzz.
    fn locate(
        &mut self,
        pat: &[&str],
        first: isize,
        pc: isize,
        sc: isize,
        fuzz: isize,
    ) -> Option<isize> {
        let first_guess = first + self.in_offset;
        let pat_lines = pat.len() as isize;
        let n = self.input.len() as isize;
        let lfl = self.frozen as isize;
        let context = pc.max(sc);
        let mut pf = fuzz + pc - context;
        let sf = fuzz + sc - context;
        let max_where = n - (pat_lines - sf) + 1;
        let min_where = lfl + 1 - (pc - pf);
        let max_pos = max_where - first_guess;
        let mut max_neg = first_guess - min_where;
        let max_offset = max_pos.max(max_neg);
        if pat_lines == 0 {
            return Some(first_guess);
        }
        if first_guess <= max_neg {
            max_neg = first_guess - 1;
        }
        if pf < 0 && first <= 1 {
            // Less context at the top: the hunk can only match at the start.
            if sf < 0 && (pat_lines != n || pc < lfl) {
                return None;
            }
            let offset = 1 - first_guess;
            if lfl <= pc && offset <= max_pos && self.matches(pat, first_guess + offset, 0, sf) {
                self.in_offset += offset;
                return Some(first_guess + offset);
            }
            return None;
        } else if pf < 0 {
            pf = 0;
        }
        if sf < 0 {
            // Less context at the bottom: only at the end of the file.
            let offset = first_guess - (n - pat_lines + 1);
            if offset <= max_neg && self.matches(pat, first_guess - offset, pf, 0) {
                self.in_offset -= offset;
                return Some(first_guess - offset);
            }
            return None;
        }
        // 2.7.6 tries offset 0 first even when it lies before the previous
        // hunk's end; `apply` then fails it as misordered.
        for offset in 0..=max_offset {
            if offset <= max_pos && self.matches(pat, first_guess + offset, pf, sf) {
                self.in_offset += offset;
                return Some(first_guess + offset);
            }
            if offset > 0 && offset <= max_neg && self.matches(pat, first_guess - offset, pf, sf) {
                self.in_offset -= offset;
                return Some(first_guess - offset);
            }
        }
        None
    }

    /// `apply_hunk`: context is copied from the input, removed lines are
    /// skipped, added lines written; false (nothing written) when the
    /// first change lies before what is already written.
    fn apply(&mut self, h: &GHunk, w: usize) -> bool {
        let lead = h.body.iter().take_while(|b| b.0 == Prefix::Context).count();
        if self.frozen > w - 1 + lead {
            return false;
        }
        let mut old = 0;
        let (mut o, mut n) = (0isize, 0isize);
        for (kind, l) in &h.body {
            match kind {
                Prefix::Context => {
                    old += 1;
                    (o, n) = (o + 1, n + 1);
                }
                Prefix::Remove => {
                    self.copy_till(w - 1 + old);
                    self.frozen += 1;
                    old += 1;
                    o += 1;
                }
                Prefix::Add => {
                    self.copy_till(w - 1 + old);
                    self.push(l);
                    n += 1;
                }
            }
        }
        self.out_offset += n - o;
        true
    }
}
