//! The token count of an excerpt ([`select::render`]) as sections are
//! added to it, without rendering it again: `O(section)` a price instead of
//! `O(excerpt)`, so filling a window is linear in the file.
//!
//! An excerpt is its header line, then each run of lines (after a
//! `[lines A-B]` marker in the sections mode). Its tally is the sum of the
//! tallies of those parts, cut where no pre-tokenizer piece spans the cut
//! ([`clean_cut`]): the header as its fixed words, one `A-B` item a run and
//! the `, ` between them; each run as its lines. Lines that cannot be cut
//! from the line before them (a blank line, a `/` after a mark) form a
//! cluster with it; a cluster's tally is taken once, from its text, and a
//! run that starts or ends inside one counts that cluster's part of its own.
//! The sum equals the count of the rendered text (a property test holds
//! the two to each other for every tokenizer).

use super::select::{self, LineNumbers};
use super::tokens::{clean_cut, Tally, Tokenizer};
use std::collections::BTreeMap;

/// What was precomputed of one file, and the runs chosen so far.
pub(super) struct Pricer {
    tok: Tokenizer,
    mode: LineNumbers,
    /// The file's lines as rendered, one after another, and where each starts.
    body: String,
    starts: Vec<usize>,
    /// Of each line: whether it can be cut from the line after a marker,
    /// and the first line of its cluster and the line after its end.
    after_marker: Vec<bool>,
    cluster: Vec<(usize, usize)>,
    /// The tallies of the clusters before each cluster's first line.
    before: Vec<Tally>,
    /// The header's fixed words, the separator of its items.
    head: Tally,
    comma: Tally,
    /// The tokens of the whole file rendered (its header differs).
    whole: usize,
    /// Chosen runs (1-based first line → last line, tally of the run's
    /// text, tally of its header item), and the sums of both.
    runs: BTreeMap<usize, (usize, Tally, Tally)>,
    body_sum: Tally,
    items_sum: Tally,
}

impl Pricer {
    pub(super) fn new(path: &str, lines: &[&str], mode: LineNumbers, tok: Tokenizer) -> Pricer {
        let n = lines.len();
        let whole = tok.count(&select::render(path, lines, &[(1, n)], mode));
        let (body, starts) = rendered_lines(lines, mode);
        let line = |i: usize| &body[starts[i]..starts[i + 1] - 1];
        let after_marker: Vec<bool> = (0..n).map(|i| clean_cut(None, line(i))).collect();
        let mut cluster = vec![(0, 0); n];
        let mut before = vec![Tally::default(); n + 1];
        let mut first = 0;
        for i in 1..=n {
            if i < n && !clean_cut(Some(line(i - 1)), line(i)) {
                continue;
            }
            cluster[first..i].fill((first, i));
            before[i] = before[first] + tok.tally(&body[starts[first]..starts[i]]);
            first = i;
        }
        Pricer {
            tok,
            mode,
            head: tok.tally(&format!("{path} (lines "))
                + tok.tally(&format!(" of {n}; the rest is not shown)\n")),
            comma: tok.tally(", "),
            whole,
            body,
            starts,
            after_marker,
            cluster,
            before,
            runs: BTreeMap::new(),
            body_sum: Tally::default(),
            items_sum: Tally::default(),
        }
    }

    /// The tokens of the whole file rendered.
    pub(super) fn whole(&self) -> usize {
        self.whole
    }

    /// The chosen runs of lines (1-based, inclusive), in order.
    pub(super) fn runs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.runs.iter().map(|(&a, &(b, _, _))| (a, b))
    }

    /// The tokens of the excerpt with lines `a..=b` (1-based) added.
    pub(super) fn cost_with(&self, a: usize, b: usize) -> usize {
        self.merged(a, b).0
    }

    /// Adds lines `a..=b` (1-based) to the excerpt.
    pub(super) fn add(&mut self, a: usize, b: usize) {
        let (_, gone, run) = self.merged(a, b);
        for start in gone {
            if let Some((_, body, item)) = self.runs.remove(&start) {
                self.body_sum -= body;
                self.items_sum -= item;
            }
        }
        let (na, nb, body, item) = run;
        self.body_sum += body;
        self.items_sum += item;
        self.runs.insert(na, (nb, body, item));
    }

    /// The cost of the excerpt with `a..=b` added, the runs it joins and
    /// the run they become (first, last, tallies).
    fn merged(&self, a: usize, b: usize) -> (usize, Vec<usize>, (usize, usize, Tally, Tally)) {
        let (mut na, mut nb) = (a, b);
        let (mut body, mut items) = (self.body_sum, self.items_sum);
        let mut gone = vec![];
        for (&start, &(end, run_body, item)) in self.runs.range(..=b + 1).rev() {
            if end + 1 < a {
                break;
            }
            (na, nb) = (na.min(start), nb.max(end));
            body -= run_body;
            items -= item;
            gone.push(start);
        }
        let runs = self.runs.len() + 1 - gone.len();
        let n = self.starts.len() - 1;
        let run_body = self.run_tally(na, nb);
        let item = self.tok.tally(&format!("{na}-{nb}"));
        let cost = if runs == 1 && (na, nb) == (1, n) {
            self.whole
        } else {
            let all = self.head + items + item + self.comma.times(runs - 1) + body + run_body;
            self.tok.total(&all)
        };
        (cost, gone, (na, nb, run_body, item))
    }

    /// The tally of a run of lines `a..=b` (1-based) as the excerpt shows
    /// it: after its marker in the sections mode.
    fn run_tally(&self, a: usize, b: usize) -> Tally {
        let (first, last) = (a - 1, b.min(self.starts.len() - 1));
        if self.mode == LineNumbers::Every {
            return self.lines_tally(first, last);
        }
        let marker = format!("[lines {a}-{b}]\n");
        let (a, b) = (first, last);
        if self.after_marker[a] {
            return self.tok.tally(&marker) + self.lines_tally(a, b);
        }
        let cut = self.cluster[a].1.min(b);
        let head = marker + &self.body[self.starts[a]..self.starts[cut]];
        self.tok.tally(&head) + self.lines_tally(cut, b)
    }

    /// The tally of lines `a..b` (0-based, `b` excluded): the clusters
    /// inside from their sums, the parts of clusters at the ends counted.
    fn lines_tally(&self, a: usize, b: usize) -> Tally {
        if a >= b {
            return Tally::default();
        }
        let (first, last) = (self.cluster[a], self.cluster[b - 1]);
        let part = |from: usize, to: usize| match self.cluster[from] == (from, to) {
            true => self.before[to] - self.before[from],
            false => self
                .tok
                .tally(&self.body[self.starts[from]..self.starts[to]]),
        };
        if first == last {
            return part(a, b);
        }
        part(a, first.1) + (self.before[last.0] - self.before[first.1]) + part(last.0, b)
    }
}

/// Every line as [`select::render`] writes it (with its number in the
/// `every` mode), and the offset of each line with the end last.
fn rendered_lines(lines: &[&str], mode: LineNumbers) -> (String, Vec<usize>) {
    let width = lines.len().to_string().len();
    let mut body = String::new();
    let mut starts = Vec::with_capacity(lines.len() + 1);
    for (i, line) in lines.iter().enumerate() {
        starts.push(body.len());
        if mode == LineNumbers::Every {
            body.push_str(&format!("{:>width$}| ", i + 1));
        }
        body.push_str(line);
        body.push('\n');
    }
    starts.push(body.len());
    (body, starts)
}
