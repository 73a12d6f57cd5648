//! Eight sessions in eight lanes at once, and a ninth that tries to work
//! in lanes it does not own: every lane ends with exactly its own commits,
//! the repository is whole, the audit log parses, the intruder changed
//! nothing.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::TestRepo;

const LANES: usize = 8;
const COMMITS: usize = 20;

/// One lane's work: 20 commits; every 5th a manual checkpoint; every 4th a
/// change thrown away by `checkout --` (checkpointed) and brought back by
/// `git ward undo`, then committed. It waits for the intruder to finish
/// before it ends, so its lease is live throughout.
const LANE_SCRIPT: &str = r#"
set -e
i=1
while [ "$i" -le 20 ]; do
  echo "$WARD_CONTRACT $i" > "f$i.txt"
  if [ $((i % 4)) = 0 ]; then
    git add "f$i.txt"
    echo "kept $i" >> "f$i.txt"
    git checkout -- "f$i.txt"
    git ward undo --yes > /dev/null
    grep -q "kept $i" "f$i.txt" || { echo "undo lost f$i.txt" >&2; exit 9; }
  fi
  if [ $((i % 5)) = 0 ]; then git ward checkpoint -m "lane $i" > /dev/null; fi
  git add -A
  git commit -q -m "$WARD_CONTRACT commit $i"
  i=$((i + 1))
done
while [ ! -e "$DONE" ]; do sleep 0.05; done
"#;

/// The intruder: waits for every lane's lease, then tries to change each
/// lane, three rounds; any attempt that succeeds is written to `$REPORT`.
const INTRUDER_SCRIPT: &str = r#"
for lane in $LANE_DIRS; do
  lease="$(git -C "$lane" rev-parse --absolute-git-dir)/ward/lease"
  while [ ! -e "$lease" ]; do sleep 0.05; done
done
for round in 1 2 3; do
  for lane in $LANE_DIRS; do
    try() { if "$@" > /dev/null 2>&1; then echo "CHANGED $lane: $*" >> "$REPORT"; fi; }
    try git -C "$lane" add -A
    try git -C "$lane" commit -q --allow-empty -m "intruder $round"
    try git -C "$lane" reset -q --hard HEAD~1
    try git -C "$lane" stash -u
    try git -C "$lane" checkout -- .
    try git -C "$lane" clean -fdx
    try git -C "$lane" switch -q -c "intruder-$round"
    try git -C "$lane" ward undo --yes
    git -C "$lane" status --short > /dev/null || echo "READ REFUSED $lane" >> "$REPORT"
    git -C "$lane" log --oneline -1 > /dev/null || echo "READ REFUSED $lane" >> "$REPORT"
  done
done
touch "$DONE"
"#;

#[test]
fn eight_lanes_at_once_keep_their_own_commits_and_an_intruder_changes_nothing() {
    let started = Instant::now();
    let repo = TestRepo::new();
    let contracts: Vec<String> = (1..=LANES).map(|n| format!("lane{n}")).collect();
    for c in &contracts {
        repo.ward(["run", "--contract", c, "--worktree", "--", "true"])
            .ok();
    }
    let lanes_dir = repo.tmp.path().join("repo.lanes");
    let dirs: Vec<String> = contracts
        .iter()
        .map(|c| lanes_dir.join(c).display().to_string())
        .collect();
    let done = repo.tmp.path().join("intruder-done");
    let report = repo.tmp.path().join("intruder-report");
    let mut children = Vec::new();
    for c in &contracts {
        let child = repo
            .ward_command([
                "run",
                "--contract",
                c,
                "--worktree",
                "--",
                "sh",
                "-c",
                LANE_SCRIPT,
            ])
            .env("DONE", &done)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start a lane");
        children.push((c.clone(), child));
    }
    let intruder = repo
        .ward_command([
            "run",
            "--contract",
            "intruder",
            "--",
            "sh",
            "-c",
            INTRUDER_SCRIPT,
        ])
        .env("DONE", &done)
        .env("REPORT", &report)
        .env("LANE_DIRS", dirs.join(" "))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the intruder");
    children.push(("intruder".to_string(), intruder));
    for (name, child) in children {
        let out = child.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{name}: {:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let changed = std::fs::read_to_string(&report).unwrap_or_default();
    assert!(changed.is_empty(), "the intruder got through:\n{changed}");

    let base = repo.rev("main").unwrap();
    for c in &contracts {
        let log = repo
            .git(["log", "--format=%s", &format!("{base}..agent/{c}")])
            .ok()
            .stdout;
        let subjects: Vec<&str> = log.lines().collect();
        assert_eq!(subjects.len(), COMMITS, "{c}: {log}");
        let own = format!("{c} commit ");
        assert!(subjects.iter().all(|s| s.starts_with(&own)), "{c}: {log}");
        let wt = lanes_dir.join(c);
        let status = repo.git_in(&wt, ["status", "--porcelain"]).ok().stdout;
        assert_eq!(status, "", "{c} left work behind");
    }
    assert!(
        repo.rev("intruder-1").is_none(),
        "no branch of the intruder's"
    );
    repo.git(["fsck", "--no-progress"]).ok();

    let audit_dir = repo.dir.join(".git/ward/audit");
    let mut lines = 0;
    for entry in std::fs::read_dir(&audit_dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("an audit line does not parse ({e}): {line}"));
            assert!(v["timestamp"].is_string(), "{line}");
            lines += 1;
        }
    }
    assert!(lines > LANES * COMMITS, "{lines} audit lines");
    let denied = repo.audit_records(&["--contract", "intruder", "--decision", "deny"]);
    assert!(
        denied.iter().all(|r| r["denial_code"] == "EN-GIT-D-007"),
        "{denied:?}"
    );
    assert!(denied.len() >= 3 * LANES * 7, "{} denials", denied.len());
    eprintln!("eight lanes took {:?}", started.elapsed());
    assert!(started.elapsed() < Duration::from_secs(600));
}
