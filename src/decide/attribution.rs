//! Attribution on agent commits: whether one may carry `Signed-off-by`.
//!
//! The Linux kernel's rule for coding assistants: an assistant adds no
//! `Signed-off-by` (only a person can certify the Developer Certificate of
//! Origin); it is credited with `Assisted-by:` instead. Policy
//! `commit.signed_off_by = "refuse"` applies it; the default, `"allow"`,
//! keeps projects whose CI asks every commit for a sign-off working.

use super::Actor;
use crate::error::{Code, Error};

/// The refusal of an agent's commit that carries `Signed-off-by`, where
/// the policy says so.
pub fn sign_off(setting: &str, actor: Actor, signed: bool) -> Option<Error> {
    (setting == "refuse" && actor == Actor::Agent && signed).then(|| {
        Error::denied(
            Code::D009,
            "an agent's commit carries Signed-off-by, which only a person may add",
            "commit without -s (and without format.signOff); a person signs off when taking the change (policy commit.signed_off_by)",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_agents_signed_commit_is_refused_and_only_when_set() {
        let rows = [
            ("refuse", Actor::Agent, true, true),
            ("refuse", Actor::Agent, false, false),
            ("refuse", Actor::Human, true, false),
            ("allow", Actor::Agent, true, false),
        ];
        for (setting, actor, signed, refused) in rows {
            let got = sign_off(setting, actor, signed);
            assert_eq!(got.is_some(), refused, "{setting} {actor:?} {signed}");
            if let Some(err) = got {
                assert_eq!(err.code, Code::D009);
            }
        }
    }
}
