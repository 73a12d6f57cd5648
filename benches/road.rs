//! In-process cost of the front half of the road: classify, load the policy
//! (built-in and local layers), gather facts, decide. `cargo bench --bench road`.
//!
//! Reports the median of 30 batches of 200 iterations each, so that a noisy
//! neighbour on a shared machine moves the median little.

use std::collections::HashMap;
use std::ffi::OsString;
use std::process::Command;
use std::time::{Duration, Instant};

use git_ward::classify::{self, Context};
use git_ward::decide;
use git_ward::facts::{self, Repo};
use git_ward::policy::{Layer, Policy};

fn median_per_iter(mut f: impl FnMut()) -> Duration {
    const BATCHES: usize = 30;
    const ITERS: u32 = 200;
    for _ in 0..ITERS {
        f();
    }
    let mut batches: Vec<Duration> = (0..BATCHES)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..ITERS {
                f();
            }
            t.elapsed() / ITERS
        })
        .collect();
    batches.sort();
    batches[BATCHES / 2]
}

fn main() {
    let tmp = std::env::temp_dir().join(format!("ward-bench-road-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(&tmp)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "b")
            .env("GIT_AUTHOR_EMAIL", "b@x")
            .env("GIT_COMMITTER_NAME", "b")
            .env("GIT_COMMITTER_EMAIL", "b@x")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(tmp.join("a"), "a").unwrap();
    git(&["add", "a"]);
    git(&["commit", "-q", "-m", "init"]);
    std::fs::create_dir_all(tmp.join(".git/ward")).unwrap();
    std::fs::write(
        tmp.join(".git/ward/policy.toml"),
        "[push]\nforce_allowed = [\"agent/*\", \"wip/*\"]\n",
    )
    .unwrap();

    let repo = Repo::at(&tmp).unwrap();
    let lines: &[&[&str]] = &[
        &["status"],
        &["commit", "-qam", "msg"],
        &["push", "--force", "origin", "HEAD:main"],
        &["checkout", "-f", "main"],
        &["reset", "--hard", "origin/main"],
    ];
    let local = tmp.join(".git/ward/policy.toml");

    println!("| step | median per call |");
    println!("|---|---|");
    let t = median_per_iter(|| {
        let mut p = Policy::built_in();
        p.add_file(&local, Layer::Local(local.clone())).unwrap();
        std::hint::black_box(p.is_protected("refs/heads/main"));
    });
    println!(
        "| policy: built-in + local layer, globs compiled | {:.1} µs |",
        t.as_secs_f64() * 1e6
    );

    let policy = {
        let mut p = Policy::built_in();
        p.add_file(&local, Layer::Local(local.clone())).unwrap();
        p
    };
    let facts = facts::gather_at(&policy, Some(&repo), repo.head(), true).unwrap();
    let aliases = HashMap::new();
    let remotes = vec!["origin".to_string()];
    let yes = |_: &str| true;
    let no_config = |_: &str| Vec::new();
    let ctx = Context {
        config: &no_config,
        aliases: &aliases,
        env_config: &[],
        remotes: &remotes,
        current_branch: Some("main"),
        is_local_branch: &yes,
        is_revision: &yes,
        env_namespace: false,
        env_exec_path: None,
        is_own_exec_path: &|_| true,
    };
    for line in lines {
        let args: Vec<OsString> = line.iter().map(OsString::from).collect();
        let t = median_per_iter(|| {
            let g = classify::parse_globals(&args);
            let action = classify::classify(&g, &ctx);
            std::hint::black_box(decide::decide(&policy, &action, &facts));
        });
        println!(
            "| classify + decide `git {}` | {:.1} µs |",
            line.join(" "),
            t.as_secs_f64() * 1e6
        );
        let t = median_per_iter(|| {
            let g = classify::parse_globals(&args);
            let action = classify::classify(&g, &ctx);
            let mut p = Policy::built_in();
            p.add_file(&local, Layer::Local(local.clone())).unwrap();
            std::hint::black_box(decide::decide(&p, &action, &facts));
        });
        println!(
            "| policy + classify + decide `git {}` | {:.1} µs |",
            line.join(" "),
            t.as_secs_f64() * 1e6
        );
    }
    let t = median_per_iter(|| {
        std::hint::black_box(Repo::at(&tmp).unwrap());
    });
    println!(
        "| find the repository (discovery, its config, the ref store) | {:.1} µs |",
        t.as_secs_f64() * 1e6
    );
    // `-c` on the command line takes gix's road, as `GIT_DIR` would.
    let through_gix = git_ward::classify::Globals {
        chdir: vec![tmp.clone()],
        config: vec![("x.y".into(), "z".into())],
        ..Default::default()
    };
    let t = median_per_iter(|| {
        std::hint::black_box(Repo::for_globals(&through_gix).unwrap());
    });
    println!(
        "| open the repository with gix (where discovery declines) | {:.1} µs |",
        t.as_secs_f64() * 1e6
    );
    let t = median_per_iter(|| {
        std::hint::black_box(facts::load_policy(Some(&repo), true).unwrap());
    });
    println!(
        "| policy: every layer (team lookup in the committed tree included) | {:.1} µs |",
        t.as_secs_f64() * 1e6
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
