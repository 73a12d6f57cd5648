//! `git ward demo`: the whole story, run for real in a throwaway repository.
//!
//! Each step runs the real binary the way an agent would (through a `git`
//! shim on PATH, or as `git ward ...`), prints the command and what came
//! back, and checks that it went as the story says. The environment is
//! isolated from the user's git config and policy files, so the demo shows
//! the built-in behaviour whatever the machine's settings.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::error::{exit, Error, IoContext, Result};
use crate::git::Git;

/// Run the whole story in a throwaway repository: an agent is denied on
/// `main`, gets a contract and is moved to its own branch, is refused a force
/// push and a remote checkout, loses work to `reset --hard` and gets it back
/// with `undo`, saves a unit of work, and meets the hooks when it skips the shim.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Keep the throwaway repository and print where it is.
    #[arg(long)]
    pub keep: bool,
    /// Print one JSON object with every step instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What a step should do.
enum Expect {
    Success,
    /// Refused with this code in its output.
    Denied(&'static str),
}

/// Who runs a step.
#[derive(Clone, Copy)]
enum Via {
    /// `git ...` through the shim, as an agent.
    Shim,
    /// The real git directly, as an agent that skips the shim.
    RealGit,
    /// `git ward ...`, as an agent.
    Tool,
}

struct Demo {
    root: PathBuf,
    ws: PathBuf,
    shim_dir: PathBuf,
    real: PathBuf,
    exe: PathBuf,
    json: bool,
    steps: Vec<Value>,
    failed: usize,
}

/// Runs `git ward demo`.
pub fn run(args: DemoArgs) -> Result<u8> {
    let mut demo = Demo::new(args.json)?;
    let story = demo.story();
    let ok = story.is_ok() && demo.failed == 0;
    if args.json {
        crate::output::outln!(
            "{}",
            json!({
                "status": if ok { "S" } else { "E" },
                "dir": demo.root,
                "kept": args.keep,
                "steps": demo.steps,
                "failed": demo.failed,
                "error": story.as_ref().err().map(|e| e.message.clone()),
            })
        );
    } else {
        match &story {
            Err(e) => crate::output::outln!("\nthe demo stopped: {}", e.message),
            Ok(()) if ok => crate::output::outln!("\nevery step went as the story says."),
            Ok(()) => {
                crate::output::outln!("\n{} step(s) did not go as the story says.", demo.failed)
            }
        }
        if args.keep {
            crate::output::outln!("the repository is kept in {}", demo.ws.display());
        }
    }
    if !args.keep {
        let _ = std::fs::remove_dir_all(&demo.root);
    }
    Ok(if ok { exit::OK } else { exit::INTERNAL })
}

impl Demo {
    fn new(json: bool) -> Result<Demo> {
        let real = Git::locate()?.path().to_path_buf();
        let exe = std::env::current_exe().doing("find git-ward's own path")?;
        let root = std::env::temp_dir().join(format!(
            "git-ward-demo-{}-{}",
            std::process::id(),
            crate::audit::new_trace_id()
        ));
        let shim_dir = root.join("shim");
        std::fs::create_dir_all(&shim_dir).at("create the directory", &shim_dir)?;
        let link = shim_dir.join("git");
        std::os::unix::fs::symlink(&exe, &link).at("create the link", &link)?;
        let config = root.join("config");
        std::fs::create_dir_all(&config).at("create the directory", &config)?;
        Ok(Demo {
            ws: root.join("workspace"),
            root,
            shim_dir,
            real,
            exe,
            json,
            steps: Vec::new(),
            failed: 0,
        })
    }

    fn story(&mut self) -> Result<()> {
        let ws = self.ws.clone();
        let origin = self.root.join("origin.git");
        self.say(&format!("git-ward demo in {}\n", self.root.display()));

        self.chapter("A workspace for the agent, with a remote");
        self.quiet(
            &["init", "-q", "-b", "main", &path(&ws)],
            &self.root.clone(),
        )?;
        self.step(
            Via::Tool,
            &["init"],
            Expect::Success,
            "a versioned workspace: .gitignore, identity, hooks, first commit",
        );
        self.quiet(
            &["init", "-q", "--bare", &path(&origin)],
            &self.root.clone(),
        )?;
        self.quiet(&["remote", "add", "origin", &path(&origin)], &ws)?;
        self.quiet(&["push", "-q", "-u", "origin", "main"], &ws)?;

        self.chapter("The agent starts work on main, without a contract");
        write(&ws.join("app.py"), "print('hello')\n")?;
        self.step(
            Via::Shim,
            &["add", "app.py"],
            Expect::Denied("EN-GIT-D-003"),
            "main is protected; the hint says what to do",
        );

        self.chapter("With a contract, it is moved to its own branch");
        self.step(
            Via::Tool,
            &["contract", "start", "demo-1"],
            Expect::Success,
            "",
        );
        self.step(
            Via::Shim,
            &["add", "app.py"],
            Expect::Success,
            "switched to agent/demo-1, carrying the work",
        );
        self.step(
            Via::Shim,
            &["commit", "-q", "-m", "Add app"],
            Expect::Success,
            "committed on agent/demo-1; main did not move",
        );

        self.chapter("Rewriting shared history is refused");
        self.step(
            Via::Shim,
            &["push", "--force", "origin", "main"],
            Expect::Denied("EN-GIT-D-005"),
            "",
        );
        self.step(
            Via::Shim,
            &["checkout", "origin/main"],
            Expect::Denied("EN-GIT-D-006"),
            "local branches only",
        );

        self.chapter("Lost work comes back");
        write(&ws.join("app.py"), "print('an hour of work')\n")?;
        self.step(
            Via::Shim,
            &["reset", "--hard"],
            Expect::Success,
            "a checkpoint was taken first",
        );
        let lost = read(&ws.join("app.py"))?;
        self.check(
            "reset --hard threw the change away",
            lost == "print('hello')\n",
        );
        self.step(Via::Tool, &["undo", "--yes"], Expect::Success, "");
        let back = read(&ws.join("app.py"))?;
        self.check("undo brought it back", back == "print('an hour of work')\n");

        self.chapter("A unit of work is saved with a structured message");
        self.step(
            Via::Tool,
            &["save", "-m", "Finish app", "--phase", "1", "--todo", "T-1"],
            Expect::Success,
            "",
        );

        self.chapter("Skipping the shim does not skip the rules");
        self.step(
            Via::RealGit,
            &["update-ref", "refs/heads/main", "HEAD"],
            Expect::Denied("EN-GIT-D-001"),
            "the reference-transaction hook refused it inside git",
        );

        self.chapter("Everything is in the audit log");
        self.step(Via::Tool, &["audit"], Expect::Success, "");
        Ok(())
    }

    fn say(&self, text: &str) {
        if !self.json {
            crate::output::outln!("{text}");
        }
    }

    fn chapter(&self, title: &str) {
        self.say(&format!("\n== {title}"));
    }

    /// Runs one step and checks it went as expected.
    fn step(&mut self, via: Via, args: &[&str], expect: Expect, note: &str) {
        let words: Vec<String> = args.iter().map(|a| quote(a)).collect();
        let words = words.join(" ");
        let shown = match via {
            Via::Shim => format!("git {words}"),
            Via::RealGit => format!("{} {words}", self.real.display()),
            Via::Tool => format!("git ward {words}"),
        };
        let out = self.command(via, args).output();
        let (code, text) = match out {
            Ok(o) => (
                o.status.code().unwrap_or(-1),
                format!(
                    "{}{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                ),
            ),
            Err(e) => (-1, format!("cannot run it: {e}\n")),
        };
        let (ok, want) = match expect {
            Expect::Success => (code == 0, "success".to_string()),
            Expect::Denied(c) => (code != 0 && text.contains(c), format!("denied {c}")),
        };
        if !ok {
            self.failed += 1;
        }
        self.say(&format!("$ {shown}"));
        for line in text.lines() {
            self.say(&format!("  {line}"));
        }
        let mark = if ok { "ok" } else { "UNEXPECTED" };
        let note = if note.is_empty() {
            want.clone()
        } else {
            format!("{want}: {note}")
        };
        self.say(&format!("  [{mark}] {note}"));
        self.steps.push(json!({
            "command": shown, "exit": code, "output": text, "expected": want, "ok": ok,
        }));
    }

    /// A check on the repository between steps.
    fn check(&mut self, what: &str, ok: bool) {
        if !ok {
            self.failed += 1;
        }
        self.say(&format!(
            "  [{}] {what}",
            if ok { "ok" } else { "UNEXPECTED" }
        ));
        self.steps.push(json!({ "check": what, "ok": ok }));
    }

    /// Setup that is not part of the story: the real git, as a person.
    fn quiet(&self, args: &[&str], dir: &Path) -> Result<()> {
        let out = self
            .command(Via::RealGit, args)
            .current_dir(dir)
            .env_remove("WARD_AGENT")
            .output()
            .doing("run git")?;
        if out.status.success() {
            return Ok(());
        }
        Err(Error::internal(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }

    /// The command for a step, in an environment isolated from the user's.
    fn command(&self, via: Via, args: &[&str]) -> Command {
        let mut cmd = match via {
            Via::Shim => Command::new(self.shim_dir.join("git")),
            Via::RealGit => Command::new(&self.real),
            Via::Tool => Command::new(&self.exe),
        };
        let real_dir = self.real.parent().unwrap_or(Path::new("/usr/bin"));
        let mut path = OsString::from(&self.shim_dir);
        path.push(":");
        path.push(real_dir);
        cmd.args(args)
            .current_dir(&self.ws)
            .stdin(Stdio::null())
            .env("PATH", path)
            .env(crate::env::WARD_REAL_GIT, &self.real)
            .env(crate::env::WARD_AGENT, "1")
            .env(
                crate::env::WARD_SYSTEM_POLICY,
                self.root.join("no-system-policy.toml"),
            )
            .env(crate::env::XDG_CONFIG_HOME, self.root.join("config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env(
                "GIT_CONFIG_GLOBAL",
                self.root.join("config").join("gitconfig"),
            )
            .env("GIT_AUTHOR_NAME", "Demo Agent")
            .env("GIT_AUTHOR_EMAIL", "agent@demo.invalid")
            .env("GIT_COMMITTER_NAME", "Demo Agent")
            .env("GIT_COMMITTER_EMAIL", "agent@demo.invalid")
            .env_remove(crate::env::WARD_CONTRACT)
            .env_remove(crate::env::WARD_POLICY)
            .env_remove(crate::env::WARD_TRACE_ID)
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE");
        cmd
    }
}

/// An argument as a shell would need it written.
fn quote(arg: &str) -> String {
    if !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@+".contains(c))
    {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).at("write", path)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).at("read", path)
}
