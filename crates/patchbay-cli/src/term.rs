//! Text from a reply or a server, made safe to print: a terminal obeys the
//! control characters in what it is sent (`ESC ]0;TITLE BEL` retitles it,
//! `ESC [2J` clears it, a lone CR overwrites a line), so every such
//! character in a file name, a feedback message or a server's body is
//! written as a visible escape. Line breaks and tabs stay as they are.

use std::borrow::Cow;

/// `s` with each control character but `\n` and `\t` written as an escape
/// (`\u{1b}`, `\r`).
pub fn shown(s: &str) -> Cow<'_, str> {
    if !s.chars().any(hidden) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if hidden(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A character a terminal acts on instead of showing.
fn hidden(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn controls_become_visible_and_text_stays() {
        assert_eq!(shown("a\x1b]0;TITLE\x07b"), "a\\u{1b}]0;TITLE\\u{7}b");
        assert_eq!(
            shown("x\x1b[2J\r\ny\tz\u{9b}"),
            "x\\u{1b}[2J\\r\ny\tz\\u{9b}"
        );
        assert!(matches!(
            shown("plain ünïcödé\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
