"""The space cases of scripts/faults: the audit directory on a full or a
read-only tmpfs, and the whole repository on a full one, under commits,
checkpoints and undo (docs/faults.md).

`run_all` starts this file again in a mount namespace of its own
(`unshare -m`, or `unshare -Urm` without root), so no mount outlives it
or shows outside; there it mounts, fills and checks.
"""

import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True


def load_faults():
    loader = importlib.machinery.SourceFileLoader("faults", os.path.join(HERE, "faults"))
    spec = importlib.util.spec_from_loader("faults", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def run_all(git, ward, base):
    """The space cases with `git`, in a mount namespace; failures counted."""
    os.makedirs(base)
    unshare = ["unshare", "-m", "--propagation", "private"]
    if os.geteuid() != 0:
        unshare = ["unshare", "-Urm", "--propagation", "private"]
    print("   space: the audit directory full and read-only, the repository full", flush=True)
    p = subprocess.run([*unshare, sys.executable, os.path.abspath(__file__), git, ward, base])
    return 0 if p.returncode == 0 else 1


def mount(where, size, *options):
    os.makedirs(where, exist_ok=True)
    opts = ",".join([f"size={size}", *options])
    subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", where], check=True)


def pad_to_pages(where):
    """Ends every file in `where` at a page boundary, with empty lines
    (the log skips them): a full tmpfs still takes an append that fits in
    the unused end of a file's last page, so without this a short line
    could be written on a "full" file system, and nothing be said."""
    for name in os.listdir(where):
        path = os.path.join(where, name)
        size = os.path.getsize(path)
        with open(path, "ab") as f:
            f.write(b"\n" * (-size % 4096))


def fill(where):
    """Writes into `where` until its file system is full."""
    block = b"\0" * 4096
    with open(os.path.join(where, "filler"), "wb", buffering=0) as f:
        try:
            while True:
                f.write(block)
        except OSError:
            pass
    for n in range(10000):
        try:
            with open(os.path.join(where, f"filler.{n}"), "wb", buffering=0) as f:
                f.write(b"x" * 64)
        except OSError:
            break


def snapshot(dirs):
    """Every file under `dirs` with its bytes."""
    out = {}
    for d in dirs:
        for top, _, names in os.walk(d):
            for n in names:
                path = os.path.join(top, n)
                if not os.path.islink(path):
                    with open(path, "rb") as f:
                        out[path] = f.read()
    return out


def still_there(before, where):
    """What was stored before is still there, byte for byte (files that
    only grew keep their old bytes first: the audit log appends)."""
    now = snapshot([where])
    lost = [p for p, body in before.items()
            if p.startswith(where) and not now.get(p, b"").startswith(body)]
    if lost:
        raise AssertionError(f"lost or changed: {lost[:5]}")


def said_once(p, text, what, at_most=False):
    n = (p.stdout + p.stderr).count(text)
    if n > 1 or (n == 0 and not at_most):
        raise AssertionError(f"{what}: {text!r} said {n} times, not once\n{p.stdout}{p.stderr}")


def no_panic(p, what):
    if p.returncode == 101 or "panicked" in p.stderr:
        raise AssertionError(f"{what}: panicked\n{p.stderr}")


def audit_cases(f, w):
    """The audit directory full, then read-only: every command still works,
    says so once, and the lines logged before are kept."""
    audit = os.path.join(w.repo, ".git", "ward", "audit")
    w.fresh()
    w.shim("commit", "-q", "--allow-empty", "-m", "logged")
    held = os.path.join(w.base, "audit-held")
    shutil.copytree(audit, held)
    for how in ["full", "read-only"]:
        mount(audit, "256k")
        for name in os.listdir(held):
            shutil.copy(os.path.join(held, name), audit)
        if how == "full":
            pad_to_pages(audit)
            fill(audit)
        else:
            subprocess.run(["mount", "-o", "remount,ro", audit], check=True)
        before = snapshot([audit])
        # Undo finds the command it undoes in the log: with none written,
        # it may find nothing to undo, and has nothing to say then.
        steps = [
            ("an agent's commit", lambda: agent_commit(w), False),
            ("a checkpoint", lambda: w.w("checkpoint", "-m", "space", agent=True, check=False),
             False),
            ("a checkpointed reset", lambda: reset(w), False),
            ("undo", lambda: w.w("undo", "--yes", check=False), True),
        ]
        for what, step, at_most in steps:
            p = step()
            what = f"audit {how}: {what}"
            no_panic(p, what)
            if p.returncode != 0:
                raise AssertionError(f"{what}: exit {p.returncode}\n{p.stdout}{p.stderr}")
            said_once(p, "cannot write the audit log", what, at_most)
            print(f"   ok  {what}: works, said {'at most ' if at_most else ''}once", flush=True)
        # The reset's work came back with undo, found through its
        # checkpoint where its line could not be logged.
        with open(os.path.join(w.repo, "d1", "f2")) as fh:
            if not fh.read().endswith("to be reset\n"):
                raise AssertionError(f"audit {how}: undo did not bring the reset's work back")
        listed = w.w("checkpoints").stdout
        if "before git reset" not in listed or " space" not in listed:
            raise AssertionError(f"audit {how}: a checkpoint is missing\n{listed}")
        still_there(before, audit)
        f.fsck(w)
        subprocess.run(["umount", audit], check=True)


def agent_commit(w):
    with open(os.path.join(w.repo, "d1", "f1"), "a") as fh:
        fh.write("more\n")
    return w.shim("commit", "-q", "-a", "-m", "agent work", check=False)


def reset(w):
    with open(os.path.join(w.repo, "d1", "f2"), "a") as fh:
        fh.write("to be reset\n")
    return w.shim("reset", "-q", "--hard", check=False)


def repo_case(f, w):
    """The repository's file system full: git fails with its own error,
    git-ward's commands fail once with their reason, nothing stored
    before is lost, and once there is room again everything works."""
    mount(w.t, "8m")
    w.fresh()
    agent_commit(w)
    w.w("checkpoint", "-m", "kept", agent=True)
    with open(os.path.join(w.repo, "d2", "f1"), "w") as fh:
        fh.write("uncommitted work\n")
    refs = w.g("for-each-ref", "--format=%(refname) %(objectname)").stdout
    fill(w.t)
    steps = [
        ("an agent's commit", lambda: agent_commit(w)),
        ("a checkpoint", lambda: w.w("checkpoint", "-m", "space", agent=True, check=False)),
        ("a checkpointed reset", lambda: w.shim("reset", "-q", "--hard", check=False)),
        ("undo", lambda: w.w("undo", "--yes", check=False)),
    ]
    for what, step in steps:
        p = step()
        what = f"repository full: {what}"
        no_panic(p, what)
        lines = [l for l in p.stderr.splitlines() if l.startswith("ward: ")]
        if len(lines) != len(set(lines)):
            raise AssertionError(f"{what}: a line said twice\n{p.stderr}")
        print(f"   ok  {what}: exit {p.returncode}, no panic, nothing said twice", flush=True)
        if os.environ.get("FAULTS_SAY"):
            print("      " + "\n      ".join(p.stderr.splitlines()), flush=True)
    # Reads only: a plain `git status` refreshes the index, which git
    # itself cannot write on a full disk.
    w.g("--no-optional-locks", "status", "--porcelain")
    w.g("log", "--oneline", "-1")
    for name in os.listdir(w.t):
        if name.startswith("filler"):
            os.remove(os.path.join(w.t, name))
    f.fsck(w)
    if w.g("for-each-ref", "--format=%(refname) %(objectname)").stdout.count("\n") < refs.count("\n"):
        raise AssertionError("repository full: refs lost")
    kept = [line for line in refs.splitlines() if line not in
            w.g("for-each-ref", "--format=%(refname) %(objectname)").stdout]
    if kept:
        raise AssertionError(f"repository full: refs changed: {kept}")
    with open(os.path.join(w.repo, "d2", "f1")) as fh:
        if fh.read() != "uncommitted work\n":
            raise AssertionError("repository full: uncommitted work lost")
    f.still_works(w)
    print("   ok  repository full: nothing stored lost, all works with room again", flush=True)


def main():
    git, ward, base = sys.argv[1:4]
    f = load_faults()
    w = f.World(base, git, ward)
    failed = 0
    for case in [audit_cases, repo_case]:
        try:
            case(f, w)
        except (AssertionError, f.Failure) as e:
            failed += 1
            print(f"FAIL space: {case.__name__}: {e}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
