//! The `git-ward` binary: the shim, the hooks and the tool, one program.
//! Everything happens in the library; `ARCHITECTURE.md` draws the road.

fn main() -> std::process::ExitCode {
    git_ward::invocation::main()
}
