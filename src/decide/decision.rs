//! `Decision`: what `decide` answers (allow, deny, switch), the rule that
//! gave it, and what to do first (a checkpoint, `pull.ff=only`).

use crate::error::{Code, Error};

/// What to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Run the command.
    Allow,
    /// Refuse it, with a code, a message and a hint.
    Deny(Error),
    /// Move to this branch (short name) first, carrying the work, then run it.
    Switch(String),
}

/// The answer, with the rule that gave it (for `explain` and the audit log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    /// Take a pre-destructive checkpoint before running (after the switch,
    /// if there is one).
    pub checkpoint: bool,
    /// The command unstages ([`Action::unstages`]): checkpoint first when
    /// it would drop a staged version the working tree no longer holds.
    /// Not a decision of its own (the word stays `allow`): the audit line
    /// says `checkpoint` when one was taken.
    pub save_staged: bool,
    /// Run git with `pull.ff=only`: on a protected branch a `pull` may only
    /// sync it, and a merge it would make there is then refused by git
    /// before it touches the working tree (not by the hook after it has).
    pub fast_forward_only: bool,
    /// The rule, in words.
    pub rule: String,
    /// The policy key that decided, for `explain --origin` (`branches.protected`).
    pub key: Option<&'static str>,
}

impl Decision {
    pub(super) fn allow(rule: impl Into<String>) -> Self {
        Decision {
            verdict: Verdict::Allow,
            checkpoint: false,
            save_staged: false,
            fast_forward_only: false,
            rule: rule.into(),
            key: None,
        }
    }

    pub(super) fn deny(
        code: Code,
        message: impl Into<String>,
        hint: impl Into<String>,
        key: &'static str,
    ) -> Self {
        let message = message.into();
        Decision {
            rule: message.clone(),
            verdict: Verdict::Deny(Error::denied(code, message, hint)),
            checkpoint: false,
            save_staged: false,
            fast_forward_only: false,
            key: Some(key),
        }
    }

    /// The denial, if this is one.
    pub fn denial(&self) -> Option<&Error> {
        match &self.verdict {
            Verdict::Deny(e) => Some(e),
            _ => None,
        }
    }

    /// The audit log's word: allow, deny, autoswitch, checkpoint.
    pub fn word(&self) -> &'static str {
        match self.verdict {
            Verdict::Deny(_) => "deny",
            Verdict::Switch(_) => "autoswitch",
            Verdict::Allow if self.checkpoint => "checkpoint",
            Verdict::Allow => "allow",
        }
    }
}
