//! Honest token accounting: the engine's estimate of a prompt next to the
//! server's count, and a warning when the server counted clearly less.
//!
//! Ollama fits a chat into `num_ctx` by dropping whole messages from the
//! front, always keeping the system messages and the last message
//! (`chatPrompt` in its `server/prompt.go`); it says nothing to the client.
//! A `prompt_eval_count` well below the estimate is that drop, and the
//! messages it removed are the oldest ones that make the estimate fit.

use super::{Message, Role};
use crate::budget::tokens::Tokenizer;

/// Tokens a chat template adds around one message (role markers).
pub const PER_MESSAGE: usize = 4;

/// The server counted less than this share of the estimate: something
/// was dropped (the estimator is within a few percent on code).
const CLEARLY_BELOW: f64 = 0.75;

/// The estimated tokens of each message.
pub fn estimate(messages: &[Message], tokenizer: Tokenizer) -> Vec<usize> {
    messages
        .iter()
        .map(|m| tokenizer.count(&m.content) + PER_MESSAGE)
        .collect()
}

/// A warning when `counted` (the server's prompt tokens) is clearly below
/// the estimate, naming what was most likely lost.
pub fn truncation_warning(
    messages: &[Message],
    estimates: &[usize],
    counted: usize,
    num_ctx: usize,
) -> Option<String> {
    let total: usize = estimates.iter().sum();
    if total == 0 || (counted as f64) >= total as f64 * CLEARLY_BELOW {
        return None;
    }
    let system: usize = messages
        .iter()
        .zip(estimates)
        .filter(|(m, _)| m.role == Role::System)
        .map(|(_, t)| t)
        .sum();
    let last = messages.len().saturating_sub(1);
    // Drop non-system messages from the front until the rest fits.
    let mut kept = total;
    let mut lost = vec![];
    for (i, (m, t)) in messages.iter().zip(estimates).enumerate() {
        if kept <= counted + counted / 10 || i == last {
            break;
        }
        if m.role != Role::System {
            kept -= t;
            lost.push(describe(i, m));
        }
    }
    let what = if lost.is_empty() || kept > counted * 2 {
        format!("the last message itself was cut to fit (system and last message alone are about {} tokens)", system + estimates.get(last).copied().unwrap_or(0))
    } else {
        format!("most likely lost: {}", lost.join(", "))
    };
    Some(format!(
        "the server counted {counted} prompt tokens, the engine estimated {total}: the prompt did not fit num_ctx {num_ctx} and the server dropped part of it without saying so; {what}. Raise num_ctx (the model reloads) or send less."
    ))
}

fn describe(i: usize, m: &Message) -> String {
    let first: String = m
        .content
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(40)
        .collect();
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    format!("message {} ({role}: {first:?})", i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msgs() -> Vec<Message> {
        vec![
            Message::new(Role::System, "rules"),
            Message::new(Role::User, "Task: fix it\nfiles"),
            Message::new(Role::Assistant, "reply one"),
            Message::new(Role::User, "feedback"),
        ]
    }

    #[test]
    fn no_warning_when_the_count_is_near_the_estimate() {
        let m = msgs();
        let est = [100, 1000, 200, 100];
        assert_eq!(truncation_warning(&m, &est, 1300, 4096), None);
    }

    #[test]
    fn names_the_oldest_non_system_messages_as_lost() {
        let m = msgs();
        let est = [100, 1000, 200, 100];
        let w = truncation_warning(&m, &est, 400, 512).unwrap();
        assert!(
            w.contains("counted 400") && w.contains("estimated 1400"),
            "{w}"
        );
        assert!(w.contains("message 2 (user: \"Task: fix it\")"), "{w}");
        assert!(!w.contains("message 1 ") && !w.contains("message 4"), "{w}");
    }

    #[test]
    fn a_cut_last_message_is_said_so() {
        let m = vec![
            Message::new(Role::System, "s"),
            Message::new(Role::User, "big"),
        ];
        let w = truncation_warning(&m, &[50, 5000], 1000, 1024).unwrap();
        assert!(w.contains("last message itself was cut"), "{w}");
    }
}
