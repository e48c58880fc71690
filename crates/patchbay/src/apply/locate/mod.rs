//! Locating one edit, written once: every way an edit finds its place in
//! the original text of its file. Blocks go through the matcher ladder,
//! narrowed by anchors and `*** End of File` ([`block`]); line-addressed
//! edits are held to their checks ([`lines()`]); substrings are searched as
//! text, whole lines falling back to the ladder ([`substring`]); damaged
//! edits offer readings and the file picks one ([`readings`]);
//! whole-file edits only look at whether the file exists ([`whole`]).
//!
//! The transaction calls [`locate`] with the file as it holds it
//! ([`Target`]) and gets a [`Spot`] (lines `start..end` become `new`) or a
//! [`Refusal`]; the udiff tools and `str_replace` use the same functions, so
//! nothing is found one way here and another way there. Locate never calls
//! back into the transaction. Cost: see each module.

pub mod block;
pub mod lines;
pub mod readings;
pub mod substring;
pub mod whole;

pub use block::{anchor_regions, block_regions, find_in_regions, replacement, AnchorMiss, Block};
pub use lines::{lines, region_view, view};
pub use substring::str_replace;

use crate::apply::feedback::{self, Words};
use crate::apply::locate::readings::{choose_in, conflict_message, Choice};
use crate::apply::matcher::{FindOptions, Haystack, Level};
use crate::apply::seen::{Relocator, SeenLines};
use crate::apply::text::Text;
use crate::edit::{Check, Closest, Code, Op, Reading};
use crate::name::FormatName;
use std::cell::OnceCell;

/// A located edit: original lines `start..end` become `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spot {
    pub start: usize,
    pub end: usize,
    pub new: Vec<String>,
    /// The matcher level that found it (none for line-addressed edits).
    pub level: Option<Level>,
    /// What the receipt says about how it was found.
    pub note: Option<String>,
    /// A change of the whole file: nothing else may touch it.
    pub exclusive: bool,
    /// The file is deleted.
    pub delete: bool,
}

impl Spot {
    /// Original lines `start..end` become `new`.
    pub fn at(start: usize, end: usize, new: Vec<String>) -> Spot {
        Spot {
            start,
            end,
            new,
            level: None,
            note: None,
            exclusive: false,
            delete: false,
        }
    }

    fn exclusive(self) -> Spot {
        Spot {
            exclusive: true,
            ..self
        }
    }
}

/// Why a leaf locator refused an edit: its code and message.
pub type Failure = (Code, String);

/// Why an edit did not locate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: Code,
    pub message: String,
    /// The level at which the block was ambiguous.
    pub level: Option<Level>,
    /// A search that found nothing: it counts towards the file's
    /// [`feedback::DETAILED`] misses that get a closest region.
    pub searched: bool,
    /// The closest region of an old text that was not found (boxed: a
    /// refusal travels through every locator's `Result`).
    pub closest: Option<Box<Closest>>,
}

impl Refusal {
    fn searched(code: Code, message: String) -> Refusal {
        Refusal {
            searched: true,
            ..(code, message).into()
        }
    }

    /// A search that found nothing, with the closest region it found.
    pub(crate) fn not_found((message, closest): (String, Option<Closest>)) -> Refusal {
        Refusal {
            closest: closest.map(Box::new),
            ..Refusal::searched(Code::NotFound, message)
        }
    }
}

impl From<Failure> for Refusal {
    fn from((code, message): Failure) -> Refusal {
        Refusal {
            code,
            message,
            level: None,
            searched: false,
            closest: None,
        }
    }
}

/// The file an edit is located in, as the transaction holds it: split and
/// indexed once per file, shared by all its edits.
pub struct Target<'t, 'a> {
    pub path: &'t str,
    /// `None`: the file does not exist.
    pub original: Option<&'a str>,
    pub text: &'t Text<'a>,
    /// The matcher's index of the file, built on first use.
    pub hay: &'t OnceCell<Haystack<'a>>,
    /// What relocating a shown block reads, built on first use.
    pub relocator: &'t Relocator,
    /// The caller's snapshot of what the model was shown, and its check
    /// for this file (looked up once per file).
    pub snapshot: Option<&'t SeenLines>,
    pub seen: &'t OnceCell<Check>,
    /// Searches of this file that found nothing so far.
    pub not_found: usize,
    /// The file's earlier edits planned something, and a whole-file
    /// change among it.
    pub planned: bool,
    pub exclusive: bool,
}

impl<'a> Target<'_, 'a> {
    fn hay(&self) -> &Haystack<'a> {
        self.hay
            .get_or_init(|| Haystack::new(self.text.shared_lines()))
    }

    /// Whether a miss still gets the closest region.
    fn detailed(&self) -> bool {
        self.not_found < feedback::DETAILED
    }
}

/// Finds another format's marker line in a whole-file text (`path`, its
/// new lines, the file's original): the line and the format. The formats
/// know the markers and give it with the transaction's dialect.
pub type ForeignMarker = fn(&str, &[String], &str) -> Option<(usize, FormatName)>;

/// How far lookups may go, the words messages use, and what reads a
/// whole-file text as another format's reply.
#[derive(Clone, Copy)]
pub struct Rules<'w> {
    /// Lines around a hint within which a single candidate may be chosen.
    pub window: usize,
    /// The most tolerant matcher level.
    pub max_level: Level,
    /// An added file may replace an existing one (Codex's rule).
    pub overwrite: bool,
    pub words: &'w Words,
    pub foreign_marker: ForeignMarker,
}

impl Rules<'_> {
    /// The lookup options of every search: built here only.
    pub fn find(&self, hint: Option<usize>) -> FindOptions {
        FindOptions {
            hint,
            window: self.window,
            max_level: self.max_level,
            min_start: 0,
            max_start: usize::MAX,
        }
    }
}

/// Locates one edit against the original text of its file. Moves and
/// views find no place; the transaction handles them.
pub fn locate(t: &Target, op: &Op, rules: Rules) -> Result<Spot, Refusal> {
    if let Some((line, col)) = op.nul_in_new_text() {
        let msg = format!(
            "the new text holds a NUL byte at its line {line}, column {col}: a text file cannot hold one (patchbay refuses such a file as binary); write the character as the language escapes it"
        );
        return Err((Code::Malformed, msg).into());
    }
    match op {
        Op::Invalid { code, message } => Err((*code, message.clone()).into()),
        Op::OneOf(readings) => reading(t, readings, rules),
        Op::Replace {
            old,
            new,
            hint,
            anchors,
            at_end,
        } => {
            let b = Block {
                old,
                new,
                hint: *hint,
                anchors,
                at_end: *at_end,
            };
            block::place(t, &b, rules)
        }
        Op::Lines {
            start,
            end,
            new,
            check,
        } => line_range(t, (*start, *end), new, check).map_err(Into::into),
        Op::StrReplace { old, new, hint } => substring(t, (old, new), *hint, rules),
        Op::Rename { .. } | Op::View { .. } => {
            Err((Code::Malformed, format!("internal: {op:?} is not located")).into())
        }
        whole => whole::place(t, whole, rules).map_err(Into::into),
    }
}

/// Alternative readings: the file picks one, which is then located like
/// any other edit, at most at its reading's level.
fn reading(t: &Target, readings: &[Reading], rules: Rules) -> Result<Spot, Refusal> {
    match chosen_reading(t.hay(), readings, rules.find(None)) {
        Ok((k, fo)) => match readings.get(k) {
            Some(r) => {
                let capped = Rules {
                    max_level: fo.max_level,
                    ..rules
                };
                locate(t, &r.op, capped)
            }
            None => Err((Code::Malformed, "the edit has no readings".into()).into()),
        },
        Err(places) => Err((
            Code::Ambiguous,
            conflict_message(rules.words, t.path, &places),
        )
            .into()),
    }
}

/// The reading of `readings` the file picks (see [`readings::choose_in`]),
/// with the lookup options it is located with (capped at its level); or
/// the places where the readings that locate disagree.
pub fn chosen_reading(
    hay: &Haystack,
    readings: &[Reading],
    fo: FindOptions,
) -> Result<(usize, FindOptions), Vec<(usize, usize)>> {
    match choose_in(hay, readings, fo) {
        Choice::One(k) => {
            let cap = readings
                .get(k)
                .map_or(fo.max_level, |r| fo.max_level.min(r.max_level));
            Ok((
                k,
                FindOptions {
                    max_level: cap,
                    ..fo
                },
            ))
        }
        Choice::Conflict(places) => Err(places),
    }
}

/// Line-addressed edits, with their checks; plain numbers are held to the
/// caller's snapshot of the view when there is one.
fn line_range(
    t: &Target,
    (start, end): (usize, usize),
    new: &[String],
    check: &Check,
) -> Result<Spot, Failure> {
    if t.original.is_none() {
        return Err((Code::FileMissing, format!("{} does not exist", t.path)));
    }
    let held = match (check, t.snapshot) {
        (Check::Snapshot, Some(seen)) => t.seen.get_or_init(|| seen.check_for(t.path)),
        _ => check,
    };
    lines(t.text, t.path, start, end, new, held, t.relocator)
}

/// A substring replacement (`str_replace`).
fn substring(
    t: &Target,
    old_new: (&str, &str),
    hint: Option<usize>,
    rules: Rules,
) -> Result<Spot, Refusal> {
    if t.original.is_none() {
        let msg = format!("{} does not exist; create it first", t.path);
        return Err((Code::FileMissing, msg).into());
    }
    let fo = rules.find(hint);
    str_replace(t.text, t.hay, t.path, old_new, hint, fo, t.detailed())
}
