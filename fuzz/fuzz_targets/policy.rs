//! The policy loader: one layer's bytes (TOML text) on the built-in policy,
//! as `policy.toml` files are read.
//!
//! Beyond not panicking: a layer that loads renders (`policy show`'s TOML)
//! into a layer that loads to the same policy.
#![no_main]

use std::path::PathBuf;

use git_ward::policy::{Layer, Policy};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let origin = Layer::Local(PathBuf::from(".git/ward/policy.toml"));
    let mut policy = Policy::built_in();
    if policy.add_layer_bytes(data, origin.clone()).is_err() {
        return;
    }
    let text = policy.to_toml();
    let again = Policy::built_in()
        .with_layer(&text, origin)
        .unwrap_or_else(|e| panic!("the rendered policy does not load: {e:?}\n{text}"));
    assert_eq!(again.to_toml(), text);
    for name in [
        "refs/heads/main",
        "refs/tags/v1",
        "main",
        "refs/heads/agent/x",
    ] {
        assert_eq!(again.is_protected(name), policy.is_protected(name));
    }
});
