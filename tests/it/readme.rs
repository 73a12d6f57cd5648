//! The README's commands, run as written: every `$ ` line of its
//! ```console blocks, in a sandbox (a temp HOME, a repository with a commit
//! on `main`, git-ward installed there by `./install` from the binary under
//! test). Each command must succeed (or, where the README shows a denial,
//! be refused), and every output line the README shows must appear in what
//! it printed, in order. The block after the `<!-- fresh-clone` marker
//! (`./install`, `cargo test`) is run by `scripts/fresh-clone` instead, on a
//! fresh clone.

use std::path::Path;
use std::process::Command;

use crate::common::{real_git, ward_bin, TestRepo};

const README: &str = include_str!("../../README.md");

/// One command of a console block and the lines the README shows it printing.
#[derive(Debug)]
struct Step {
    command: String,
    shown: Vec<String>,
}

/// Each ```console block's steps, and whether it is the fresh-clone block.
fn blocks(text: &str) -> Vec<(bool, Vec<Step>)> {
    let mut blocks = Vec::new();
    let mut fresh = false;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("<!-- fresh-clone") {
            fresh = true;
        } else if line == "```console" {
            let mut steps: Vec<Step> = Vec::new();
            for line in lines.by_ref().take_while(|l| *l != "```") {
                match line.strip_prefix("$ ") {
                    Some(command) => steps.push(Step {
                        command: command.to_string(),
                        shown: Vec::new(),
                    }),
                    None => steps
                        .last_mut()
                        .expect("a console block starts with a command")
                        .shown
                        .push(line.to_string()),
                }
            }
            blocks.push((fresh, steps));
            fresh = false;
        } else if line.starts_with("```") && line != "```" {
            panic!("README: only ```console blocks hold commands, not {line}");
        }
    }
    blocks
}

#[test]
fn the_fresh_clone_block_is_the_two_commands_its_script_runs() {
    let fresh: Vec<Vec<String>> = blocks(README)
        .into_iter()
        .filter(|(fresh, _)| *fresh)
        .map(|(_, steps)| steps.into_iter().map(|s| s.command).collect())
        .collect();
    assert_eq!(fresh, vec![vec!["./install", "cargo test"]]);
    let script = include_str!("../../scripts/fresh-clone");
    assert!(script.contains("sed -n '/^<!-- fresh-clone/"), "{script}");
}

#[test]
fn every_readme_command_runs_as_shown() {
    let repo = TestRepo::new();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = repo.home.join(".local/bin");
    let path = format!(
        "{}:{}:{}",
        bin.display(),
        real_git().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let sh = |script: &str| {
        let mut cmd = Command::new("bash");
        repo.hermetic(&mut cmd);
        cmd.env("PATH", &path)
            .env("WARD_REAL_GIT", real_git())
            .env("WARD_BUILT", ward_bin())
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("LC_ALL", "C.UTF-8")
            .env_remove("XDG_DATA_HOME")
            .arg("-c")
            .arg(script)
            .output()
            .expect("run bash")
    };
    let install = format!("{}/install", manifest.display());
    // As after the README's `./install`, from the binary under test.
    let setup = sh(&install);
    assert!(setup.status.success(), "./install: {setup:?}");
    let mut ran = 0;
    for (fresh, steps) in blocks(README) {
        if fresh {
            continue;
        }
        // One shell per block, so an `export` in one leaves the next alone.
        let mut script = String::from("exec 2>&1\n");
        for (i, step) in steps.iter().enumerate() {
            let command = match step.command.strip_prefix("./install") {
                Some(rest) => format!("{install}{rest}"),
                None => step.command.clone(),
            };
            script.push_str(&format!("echo '<<<{i}'\n{command}\necho \"<<<rc $?\"\n"));
        }
        let out = sh(&script);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        for (i, step) in steps.iter().enumerate() {
            let start = text
                .find(&format!("<<<{i}\n"))
                .unwrap_or_else(|| panic!("{text}"));
            let rest = &text[start..];
            let end = rest.find("<<<rc ").unwrap_or_else(|| panic!("{text}"));
            let printed = &rest[rest.find('\n').unwrap() + 1..end];
            let code = rest[end + 6..].lines().next().unwrap();
            let denied = step.shown.iter().any(|l| l.starts_with("ward: denied"));
            // A group named without its command lists them, with clap's
            // usage status.
            let lists = step.shown.iter().any(|l| l == "Commands:");
            let want = match (denied, lists) {
                (true, _) => "1",
                (_, true) => "2",
                _ => "0",
            };
            assert_eq!(code, want, "`{}` exited {code}:\n{printed}", step.command);
            let mut from = 0;
            for line in &step.shown {
                let at = printed[from..].lines().position(|l| l == line);
                let Some(at) = at else {
                    panic!("`{}` did not print {line:?}:\n{printed}", step.command);
                };
                from += printed[from..]
                    .lines()
                    .take(at + 1)
                    .map(|l| l.len() + 1)
                    .sum::<usize>();
            }
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} commands ran");
}
