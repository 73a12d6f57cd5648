#!/usr/bin/env python3
"""Drives `git-ward mcp` with the official MCP Python SDK (PyPI package `mcp`).

Usage: mcp_client.py <git-ward binary> <repository> <shim git>

The repository is prepared by tests/it/mcp.rs: `main` with one commit,
pushed to `origin`; a local branch `feature`; README modified; new.txt
untracked; no contract. The shim `git` (a link to git-ward) runs an
agent's destructive command for the undo check. Every check prints
`ok <name>`; the first failure prints `FAIL <name>: <why>` and exits 1. Exit 2: the SDK is not installed.
"""

import asyncio
import json
import os
import subprocess
import sys

try:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared import exceptions as mcp_exceptions
    import jsonschema  # the SDK's own dependency, which it validates results with
except ImportError as err:  # tests/it/tools.rs installs it into the test venv
    print(f"cannot import the MCP Python SDK ({err}): run it with tools::python()", file=sys.stderr)
    sys.exit(2)

# The SDK renamed a few things between major versions; accept both spellings.
MCPError = getattr(mcp_exceptions, "MCPError", None) or getattr(mcp_exceptions, "McpError")


def field(obj, *names):
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    raise AttributeError(names[0])


class Failed(Exception):
    pass


def check(name, cond, why=""):
    if not cond:
        raise Failed(f"{name}: {why}")
    print(f"ok {name}", flush=True)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def is_error(result):
    return bool(field(result, "is_error", "isError"))


def structured(result):
    value = field(result, "structured_content", "structuredContent")
    if value is None:  # a client that negotiated an older version: the text is the JSON
        value = json.loads(text_of(result))
    return value


async def call(session, tool, **args):
    return await session.call_tool(tool, args)


# Each tool's outputSchema from tools/list: every result is checked against it.
SCHEMAS = {}


async def expect_ok(session, tool, **args):
    result = await call(session, tool, **args)
    if is_error(result):
        raise Failed(f"{tool} {args}: unexpected error: {text_of(result)}")
    value = field(result, "structured_content", "structuredContent")
    if value is None:
        raise Failed(f"{tool} {args}: no structured content")
    try:
        jsonschema.validate(value, SCHEMAS[tool])
    except jsonschema.ValidationError as err:
        raise Failed(f"{tool} {args}: the result does not validate against its outputSchema: {err.message}")
    return result


def git(repo, *args):
    return subprocess.run(
        ["git", "-C", repo, *args], check=True, capture_output=True, text=True
    ).stdout.rstrip("\n")


async def main(binary, repo, shim):
    params = StdioServerParameters(command=binary, args=["mcp"], cwd=repo, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            info = field(init, "server_info", "serverInfo")
            check("initialize", info.name == "git-ward", info)

            tools = (await session.list_tools()).tools
            names = {t.name for t in tools}
            want = {
                "git_status", "git_log", "git_show", "git_diff", "git_branches", "git_checkout", "save",
                "explain", "checkpoint_create", "checkpoint_list", "rollback", "undo",
            }
            check("tools/list", names == want, sorted(names))
            for t in tools:
                schema = field(t, "input_schema", "inputSchema")
                check(f"schema {t.name}", schema["type"] == "object" and t.description, schema)
                output = field(t, "output_schema", "outputSchema")
                check(f"outputSchema {t.name}", output is not None and output["type"] == "object"
                      and output["properties"], output)
                jsonschema.Draft202012Validator.check_schema(output)
                SCHEMAS[t.name] = output

            status = structured(await expect_ok(session, "git_status"))
            check("git_status", status["branch"] == "main"
                  and status["untracked"] == ["new.txt"]
                  and status["unstaged"] == [{"status": "M", "path": "README"}]
                  and status["upstream"] == "origin/main" and status["ahead"] == 0, status)

            result = await expect_ok(session, "git_log")
            log = text_of(result)
            check("git_log", log.strip().endswith("initial") and len(log.splitlines()) == 1, log)
            check("git_log structured", structured(result) == {"output": log}, structured(result))
            log = text_of(await expect_ok(session, "git_log", max_count=1, oneline=False))
            check("git_log full", "Author:" in log and "initial" in log, log)

            show = text_of(await expect_ok(session, "git_show", stat_only=True))
            check("git_show stat_only", "README" in show and "diff --git" not in show, show)
            show = text_of(await expect_ok(session, "git_show", commit_ref="main"))
            check("git_show patch", "+hello" in show, show)

            diff = text_of(await expect_ok(session, "git_diff"))
            check("git_diff uncommitted", "-hello" in diff and "+changed" in diff, diff)
            diff = text_of(await expect_ok(session, "git_diff", from_ref="main", file_path="README"))
            check("git_diff ref vs worktree", "+changed" in diff, diff)
            diff = text_of(await expect_ok(session, "git_diff", from_ref="main", to_ref="feature"))
            check("git_diff two refs", "feature.txt" in diff, diff)
            bad = await call(session, "git_diff", from_ref="no-such-branch")
            check("git_diff unknown ref", is_error(bad) and "unknown_ref" in text_of(bad), text_of(bad))

            # The seed's scenario: a save on main without a contract is denied.
            denied = await call(session, "save", message="Add feature")
            text = text_of(denied)
            check("save denied on main", is_error(denied) and "EN-GIT-D-003" in text
                  and "hint: run `git ward contract start <id>` or set WARD_CONTRACT, then retry" in text, text)
            check("save denied changed nothing", git(repo, "rev-parse", "--abbrev-ref", "HEAD") == "main"
                  and git(repo, "status", "--porcelain") == " M README\n?? new.txt", git(repo, "status", "--porcelain"))

            for name in ["origin/main", "HEAD~1", "@{-1}", "a..b", "-f", "/etc"]:
                refused = await call(session, "git_checkout", branch_name=name)
                err = structured(refused)
                check(f"git_checkout {name} refused", is_error(refused) and err["error"] == "invalid_branch", text_of(refused))
            refused = await call(session, "git_checkout", branch_name="origin/main")
            text = text_of(refused)
            check("git_checkout remote carries D006 and hint", "EN-GIT-D-006" in text and "hint:" in text, text)
            missing = structured(await call(session, "git_checkout", branch_name="nope"))
            check("git_checkout unknown local", missing["error"] == "invalid_branch" and missing["code"] == "EN-GIT-I-001", missing)

            branches = structured(await expect_ok(session, "git_branches"))
            by_name = {b["name"]: b for b in branches["branches"]}
            check("git_branches", branches["current"] == "main" and set(by_name) == {"main", "feature"}
                  and by_name["main"]["protected"] is True and by_name["feature"]["protected"] is False
                  and by_name["main"]["upstream"] == "origin/main" and by_name["main"]["ahead"] == 0
                  and by_name["feature"]["upstream"] is None
                  and by_name["feature"]["commit"] == git(repo, "rev-parse", "feature"), branches)

            done = structured(await expect_ok(session, "git_checkout", branch_name="feature"))
            check("git_checkout feature", done == {"branch": "feature", "commit_hash": git(repo, "rev-parse", "feature")}, done)
            await expect_ok(session, "git_checkout", branch_name="main")

            explained = structured(await expect_ok(session, "explain", args=["push", "--force", "origin", "main"]))
            check("explain", explained["decision"] == "deny" and explained["code"] == "EN-GIT-D-005"
                  and explained["hint"] and "action" not in explained, explained)
            full = structured(await expect_ok(session, "explain", args=["status"], full=True))
            check("explain full", full["decision"] == "allow" and full["details"]["action"]["effect"] == "read", full)

            # With a contract, the same save moves to the agent branch.
            subprocess.run([binary, "contract", "start", "c1"], cwd=repo, check=True, capture_output=True)
            saved = structured(await expect_ok(session, "save", message="Add feature", phase="1", todo="T-1", notes=["first note"]))
            check("save switches", saved["branch"] == "agent/c1" and saved["switched"] is True
                  and saved["commit"] == git(repo, "rev-parse", "agent/c1"), saved)
            check("save message", git(repo, "log", "-1", "--format=%s") == "[Phase 1] T-1: Add feature", git(repo, "log", "-1", "--format=%B"))
            for name in ["one.txt", "two.txt"]:
                open(os.path.join(repo, name), "w").write(name)
            await expect_ok(session, "save", message="Only one", paths=["one.txt"])
            check("save paths", git(repo, "show", "--name-only", "--format=", "HEAD") == "one.txt"
                  and git(repo, "status", "--porcelain") == "?? two.txt", git(repo, "status", "--porcelain"))
            os.remove(os.path.join(repo, "two.txt"))

            # Checkpoint, damage, plan, apply.
            (open(os.path.join(repo, "work.txt"), "w")).write("precious\n")
            created = structured(await expect_ok(session, "checkpoint_create", message="before the refactor"))
            cp = created["checkpoint"]["id"]
            check("checkpoint_create", cp.startswith("chk-c1-"), created)
            listed = structured(await expect_ok(session, "checkpoint_list"))
            check("checkpoint_list", any(c["id"] == cp for c in listed["checkpoints"]), listed)
            check("checkpoint_list compact", all(len(c) <= 10 and "tree" not in c for c in listed["checkpoints"]), listed)
            listed = structured(await expect_ok(session, "checkpoint_list", full=True))
            check("checkpoint_list full", all(c["details"]["id"] == c["id"] and c["details"]["tree"]
                                              for c in listed["checkpoints"]), listed)
            unknown = await call(session, "rollback", checkpoint_id="chk-none-9")
            check("hints name tools", is_error(unknown) and "checkpoint_list" in text_of(unknown)
                  and "git ward checkpoints" not in text_of(unknown), text_of(unknown))
            open(os.path.join(repo, "work.txt"), "w").write("damaged\n")
            plan = structured(await expect_ok(session, "rollback", checkpoint_id=cp))
            check("rollback plan", "confirm: true" in plan["next"]
                  and open(os.path.join(repo, "work.txt")).read() == "damaged\n", plan)
            applied = await expect_ok(session, "rollback", checkpoint_id=cp, confirm=True)
            check("rollback apply", open(os.path.join(repo, "work.txt")).read() == "precious\n", text_of(applied))
            bad = await call(session, "rollback", checkpoint_id="--all")
            check("rollback bad id", is_error(bad) and "EN-GIT-I-001" in text_of(bad), text_of(bad))

            # An agent's destructive command through the shim, then undo: plan, apply.
            readme = os.path.join(repo, "README")
            open(readme, "w").write("an hour of work\n")
            subprocess.run([shim, "reset", "-q", "--hard"], cwd=repo, check=True, capture_output=True)
            check("reset --hard through the shim", open(readme).read() == "changed\n", open(readme).read())
            plan = structured(await expect_ok(session, "undo"))
            check("undo plan", "confirm: true" in plan["next"] and open(readme).read() == "changed\n", plan)
            await expect_ok(session, "undo", confirm=True)
            check("undo apply", open(readme).read() == "an hour of work\n", open(readme).read())

            # Malformed calls: protocol errors and tool errors; the server keeps serving.
            try:
                await call(session, "no_such_tool")
                raise Failed("unknown tool: no error")
            except MCPError as e:
                check("unknown tool is a JSON-RPC error", "unknown tool" in str(e), str(e))
            wrong = await call(session, "git_log", max_count="ten")
            check("wrong argument type", is_error(wrong) and "max_count" in text_of(wrong), text_of(wrong))
            extra = await call(session, "git_status", colour=True)
            check("unknown argument", is_error(extra) and "colour" in text_of(extra), text_of(extra))
            outside = await call(session, "git_status", repo_path="/")
            check("not a repository", is_error(outside) and "not_a_repository" in text_of(outside), text_of(outside))
            # Confined to the repository it was started in.
            other = os.path.join(os.path.dirname(repo), "other-repository")
            subprocess.run(["git", "init", "-q", other], check=True, capture_output=True)
            refused = await call(session, "git_status", repo_path=other)
            check("another repository is refused", is_error(refused)
                  and "repository_not_served" in text_of(refused), text_of(refused))
            own = structured(await expect_ok(session, "git_status", repo_path=repo))
            check("its own repository by path", own["branch"] == "agent/c1", own)
            await session.send_ping()
            still = structured(await expect_ok(session, "git_status"))
            check("still serving", still["branch"] == "agent/c1", still)
    print("ALL OK", flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
    except BaseException as error:  # the SDK's task groups wrap it in an ExceptionGroup
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        if not isinstance(error, Failed):
            raise
        print(f"FAIL {error}", flush=True)
        sys.exit(1)
