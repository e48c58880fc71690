//! Honest token accounting: the engine's estimate of a prompt next to the
//! server's count, and a warning when the server counted clearly less.
//!
//! Ollama fits a chat into `num_ctx` by dropping whole messages from the
//! front, always keeping the system messages and the last message
//! (`chatPrompt` in its `server/prompt.go`); it says nothing to the client.
//! A `prompt_eval_count` well below the estimate is that drop, and the
//! messages it removed are the oldest ones that make the estimate fit.
//!
//! The estimate misses what the server adds: the chat template's markers
//! (and a default system prompt some templates insert), and the gap between
//! the estimator's vocabulary and the model's. The first round's real count
//! measures both ([`Calibration`]); the following rounds' estimates are
//! scaled by it, so the budget plans with what the server will count.

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

/// A round's estimate next to the server's count of the same prompt: the
/// template's overhead, learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Calibration {
    /// The round the count came from.
    pub round: usize,
    /// The engine's estimate of that round's prompt.
    pub estimate: usize,
    /// The server's count (`prompt_tokens`, `prompt_eval_count`).
    pub counted: usize,
}

/// A count above this share of the estimate is taken as a measurement;
/// below, something else is going on (a cut prompt, a cached prefix).
const MEASURES_FROM: f64 = CLEARLY_BELOW;
/// A count more than this many times the estimate is not trusted as a
/// scale (a server that counts something else).
const MEASURES_TO: f64 = 2.0;

impl Calibration {
    /// The calibration a round's count gives, when it is a measurement of
    /// the whole prompt.
    pub fn learn(round: usize, estimate: usize, counted: usize) -> Option<Calibration> {
        let ratio = counted as f64 / estimate.max(1) as f64;
        (estimate > 0 && (MEASURES_FROM..=MEASURES_TO).contains(&ratio)).then_some(Calibration {
            round,
            estimate,
            counted,
        })
    }

    /// What the server counts for each token the engine estimates.
    pub fn ratio(&self) -> f64 {
        self.counted as f64 / self.estimate.max(1) as f64
    }

    /// The tokens the server adds beyond the estimate (negative when the
    /// estimator counts more than the server).
    pub fn overhead(&self) -> i64 {
        self.counted as i64 - self.estimate as i64
    }

    /// Per-message estimates scaled to what the server will count.
    pub fn scale(&self, estimates: &[usize]) -> Vec<usize> {
        let r = self.ratio();
        estimates
            .iter()
            .map(|&t| (t as f64 * r).ceil() as usize)
            .collect()
    }
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
    fn a_count_calibrates_the_following_estimates() {
        // The server counted 350 for a prompt estimated at 285 (SmolLM2's
        // template and vocabulary against the o200k estimate).
        let c = Calibration::learn(1, 285, 350).unwrap();
        assert_eq!(c.overhead(), 65);
        // 100 and 185 tokens scaled by 350/285, rounded up: 122.8 and 227.2.
        assert_eq!(c.scale(&[100, 185]), [123, 228]);
        // A cut prompt or a cached prefix is not a measurement, nor is a
        // count of something else.
        assert_eq!(Calibration::learn(1, 1000, 400), None);
        assert_eq!(Calibration::learn(1, 100, 250), None);
        assert_eq!(Calibration::learn(1, 0, 10), None);
        assert!(Calibration::learn(1, 1000, 900).is_some_and(|c| c.overhead() == -100));
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
