//! Edits of the whole file: delete, create, write, create-or-append. They
//! find no place; what decides is whether the file exists and what the
//! file's other edits already planned (a whole-file change is exclusive).

use super::{Failure, Rules, Spot, Target};
use crate::apply::elision::find_elision;
use crate::apply::feedback;
use crate::edit::{Code, Op};
use crate::name::FormatName;

/// Where a whole-file edit goes, or why it cannot.
pub fn place(t: &Target, op: &Op, rules: Rules) -> Result<Spot, Failure> {
    let n = t.text.len();
    let creating = t.original.is_none();
    let spot = |start, end, new: &[String]| Spot::at(start, end, new.to_vec());
    match op {
        Op::Delete if creating => Err((
            Code::FileMissing,
            format!("cannot delete {}: it does not exist", t.path),
        )),
        Op::Delete => Ok(Spot {
            delete: true,
            ..spot(0, n, &[]).exclusive()
        }),
        Op::Create { text } | Op::Write { text } if foreign(t, text, rules).is_some() => {
            let (k, format) = foreign(t, text, rules).expect("checked");
            let msg = feedback::foreign_marker(t.path, k, &text[k], format);
            Err((Code::Malformed, msg))
        }
        Op::Create { text } if !creating && rules.overwrite && !t.planned => {
            Ok(spot(0, n, text).exclusive())
        }
        Op::Create { .. } if !creating || t.exclusive => Err((
            Code::FileExists,
            format!(
                "cannot create {}: it already exists; edit it instead",
                t.path
            ),
        )),
        Op::Create { text } => Ok(spot(0, 0, text).exclusive()),
        Op::Write { text } => match find_elision(text, t.text.lines()) {
            Some(k) => Err((Code::Elided, feedback::elided(t.path, k, &text[k]))),
            None => Ok(spot(0, n, text).exclusive()),
        },
        Op::CreateOrAppend { text } => Ok(spot(n, n, text)),
        other => Err((
            Code::Malformed,
            format!("internal: {other:?} is not a whole-file edit"),
        )),
    }
}

/// Another format's marker in a whole-file text (see
/// the formats' `foreign_marker`).
fn foreign(t: &Target, text: &[String], rules: Rules) -> Option<(usize, FormatName)> {
    (rules.foreign_marker)(t.path, text, t.original.unwrap_or(""))
}
