//! Applying edits to texts: the text model, the matcher ladder, locating an
//! edit, the all-or-nothing transaction, and what it reports (receipts,
//! model-readable feedback), and the line checks line-addressed edits are
//! held to (hashline tags, the `lines` format's snapshot of what the model
//! was shown). Nothing here knows a format's syntax; formats parse into
//! [`crate::edit::Edit`]s and this module places them.

pub mod diff;
pub mod elision;
pub mod feedback;
pub mod fold;
pub mod locate;
pub mod matcher;
pub mod paths;
pub mod report;
pub mod seen;
pub mod tags;
pub mod text;
pub mod transaction;
