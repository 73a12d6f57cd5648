//! A POSIX shell command line, read far enough to find every git it runs.
//!
//! Pure: a string in, the git invocations out. Lists (`&&`, `||`, `;`,
//! `|`, `&`, newlines), subshells, `$( )`, backquotes, `<( )`, `sh -c`
//! strings and `eval` are read recursively; `cd`/`pushd`/`env -C` decide
//! the directory; `VAR=... git` and `env VAR=... git` the environment;
//! quoting is undone as sh does. What it cannot read where a git may hide
//! (an unclosed quote, `case`, `xargs git`, a program named by a variable,
//! a `cd` to somewhere unknown) makes the whole line [`Line::unreadable`],
//! so that no caller answers "allow" for it.

/// One git the line runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitCall {
    /// The program as written (`git`, `/usr/bin/git`).
    pub program: String,
    /// Its arguments, quotes removed.
    pub args: Vec<String>,
    /// Variables the line sets for it (`VAR=x git`, `env VAR=x git`, and
    /// those set for an enclosing `sh -c`).
    pub env: Vec<(String, String)>,
    /// The directories changed into before it, in order, each relative to
    /// the one before (`cd a && cd /b && git ...` is `["a", "/b"]`).
    pub dirs: Vec<String>,
    /// Some argument's value is known only when the shell runs (`"$X"`,
    /// `"$(cat <<EOF ...)"`): it is read as written.
    pub opaque: bool,
}

/// Everything the line runs, as far as git is concerned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    pub git: Vec<GitCall>,
    /// A command other than git (and `cd`) runs too.
    pub others: bool,
    /// Why a git might run where this reader cannot see it.
    pub unreadable: Option<String>,
}

/// Reads a command line.
pub fn split(line: &str) -> Line {
    let mut p = Parser {
        s: line.chars().collect(),
        i: 0,
        out: Line::default(),
        heredocs: Vec::new(),
        depth: 0,
        backquoted: 0,
    };
    let mut dir = Dir::default();
    p.list(Close::End, &mut dir, &[]);
    if p.out.unreadable.is_some() || !p.heredocs.is_empty() {
        let why = p
            .out
            .unreadable
            .take()
            .unwrap_or_else(|| "a here-document is not closed".into());
        // Only where a git could hide: a line that never names git (in any
        // case: `$GIT`) is taken to run none.
        if line.to_ascii_lowercase().contains("git") {
            p.out.unreadable = Some(why);
        }
    }
    p.out
}

/// Where the commands so far have moved to.
#[derive(Clone, Debug, Default)]
struct Dir {
    path: Vec<String>,
    unknown: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Close {
    End,
    Paren,
    Backquote,
}

/// A word: its text with quotes removed, and whether the shell would
/// expand something in it (its value is then known only when it runs).
#[derive(Clone, Debug, Default)]
struct Word {
    text: String,
    expands: bool,
}

struct Parser {
    s: Vec<char>,
    i: usize,
    out: Line,
    /// Here-documents whose bodies start at the next newline: (delimiter, strip tabs).
    heredocs: Vec<(String, bool)>,
    depth: usize,
    /// Inside backquotes, an unescaped backquote always closes them.
    backquoted: usize,
}

const DEEPEST: usize = 32;

impl Parser {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.s.get(self.i + n).copied()
    }

    fn fail(&mut self, why: &str) {
        if self.out.unreadable.is_none() {
            self.out.unreadable = Some(why.to_string());
        }
        self.i = self.s.len();
    }

    fn list(&mut self, close: Close, dir: &mut Dir, env: &[(String, String)]) {
        self.depth += 1;
        if self.depth > DEEPEST {
            self.fail("the line nests too deeply");
        }
        loop {
            self.blanks();
            match self.peek() {
                None => {
                    if close != Close::End {
                        self.fail("a parenthesis or backquote is not closed");
                    }
                    break;
                }
                Some(')') if close == Close::Paren => {
                    self.i += 1;
                    break;
                }
                Some('`') if close == Close::Backquote => {
                    self.i += 1;
                    break;
                }
                // Inside backquotes, one closes them before what is open
                // within (`` `(a` ``): sh reads an unclosed parenthesis.
                Some('`') if self.backquoted > 0 => {
                    self.fail("a parenthesis or backquote is not closed")
                }
                Some('\n') => {
                    self.i += 1;
                    self.heredoc_bodies();
                }
                Some(';' | '&' | '|') => self.i += 1,
                Some('(') => {
                    self.i += 1;
                    let mut inner = dir.clone();
                    self.list(Close::Paren, &mut inner, env);
                }
                Some(')') => self.fail("a parenthesis closes what was not opened"),
                Some(_) => self.command(close, dir, env),
            }
        }
        self.depth -= 1;
    }

    /// Spaces, tabs, line continuations and comments.
    fn blanks(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' => self.i += 1,
                '\\' if self.peek_at(1) == Some('\n') => self.i += 2,
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn heredoc_bodies(&mut self) {
        for (delimiter, strip) in std::mem::take(&mut self.heredocs) {
            loop {
                if self.i >= self.s.len() {
                    self.fail("a here-document is not closed");
                    return;
                }
                let start = self.i;
                while self.peek().is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
                let text: String = self.s[start..self.i].iter().collect();
                if self.peek() == Some('\n') {
                    self.i += 1;
                }
                let text = if strip {
                    text.trim_start_matches('\t')
                } else {
                    &text
                };
                if text == delimiter {
                    break;
                }
            }
        }
    }

    /// One simple command: its words up to an operator, then what it runs.
    fn command(&mut self, close: Close, dir: &mut Dir, env: &[(String, String)]) {
        let mut words = Vec::new();
        loop {
            self.blanks();
            match self.peek() {
                None | Some('\n' | ';' | '|') => break,
                Some('&') if self.peek_at(1) != Some('>') => break,
                Some(')') if close == Close::Paren => break,
                Some('`') if self.backquoted > 0 => break,
                Some(')') => {
                    self.fail("a parenthesis closes what was not opened");
                    return;
                }
                Some('(') => {
                    // `name() { ...; }` and the like: a function or pattern.
                    self.fail("a function definition or pattern");
                    return;
                }
                Some(_) => {
                    if self.redirect(dir, env) {
                        continue;
                    }
                    let at = self.i;
                    let word = self.word(dir, env);
                    if self.i == at {
                        // Nothing read: no word starts here, and looping
                        // would never end.
                        self.fail("a word cannot be read");
                        return;
                    }
                    words.push(word);
                }
            }
        }
        self.simple(words, dir, env);
    }

    /// A redirection (`>f`, `2>&1`, `<<EOF`, `&>f`), skipped with its target.
    fn redirect(&mut self, dir: &mut Dir, env: &[(String, String)]) -> bool {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        let op_start = self.i;
        match (self.peek(), self.peek_at(1)) {
            (Some('<' | '>'), Some('(')) if op_start == start => {
                self.i = start;
                return false;
            }
            (Some('&'), Some('>')) if op_start == start => self.i += 2,
            (Some('<' | '>'), _) => self.i += 1,
            _ => {
                self.i = start;
                return false;
            }
        }
        let mut heredoc = None;
        match (self.s[op_start], self.peek()) {
            ('<', Some('<')) => {
                self.i += 1;
                match self.peek() {
                    Some('<') => self.i += 1,
                    Some('-') => {
                        self.i += 1;
                        heredoc = Some(true);
                    }
                    _ => heredoc = Some(false),
                }
            }
            (_, Some('>' | '&' | '|')) => self.i += 1,
            _ => {}
        }
        self.blanks();
        if matches!(self.peek(), None | Some('\n' | ';' | '|' | '&' | ')')) {
            self.fail("a redirection without a target");
            return true;
        }
        let target = self.word(dir, env);
        if let Some(strip) = heredoc {
            self.heredocs.push((target.text, strip));
        }
        true
    }

    /// One word, quotes removed; expansions inside are read for the
    /// commands they run.
    fn word(&mut self, dir: &mut Dir, env: &[(String, String)]) -> Word {
        let mut w = Word::default();
        let first = self.i;
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '|' | '&' | ')' | '(' => break,
                '`' if self.backquoted > 0 => break,
                '<' | '>' if self.peek_at(1) == Some('(') => {
                    self.i += 2;
                    let mut inner = dir.clone();
                    self.list(Close::Paren, &mut inner, env);
                    w.expands = true;
                }
                '<' | '>' => break,
                '\'' => {
                    self.i += 1;
                    let mut closed = false;
                    while let Some(c) = self.peek() {
                        self.i += 1;
                        if c == '\'' {
                            closed = true;
                            break;
                        }
                        w.text.push(c);
                    }
                    if !closed {
                        self.fail("a quote is not closed");
                        return w;
                    }
                }
                '"' => {
                    self.i += 1;
                    if !self.double_quoted(&mut w, dir, env) {
                        self.fail("a quote is not closed");
                        return w;
                    }
                }
                '\\' => {
                    self.i += 1;
                    match self.peek() {
                        Some('\n') => self.i += 1,
                        Some(c) => {
                            w.text.push(c);
                            self.i += 1;
                        }
                        None => {}
                    }
                }
                '$' | '`' => {
                    self.expansion(&mut w, dir, env);
                }
                '~' if self.i == first => {
                    w.text.push(c);
                    w.expands = true;
                    self.i += 1;
                }
                _ => {
                    w.text.push(c);
                    self.i += 1;
                }
            }
        }
        w
    }

    /// The inside of `"..."`, after the opening quote. False when it never closes.
    fn double_quoted(&mut self, w: &mut Word, dir: &mut Dir, env: &[(String, String)]) -> bool {
        while let Some(c) = self.peek() {
            match c {
                '"' => {
                    self.i += 1;
                    return true;
                }
                '\\' => {
                    self.i += 1;
                    match self.peek() {
                        Some('\n') => self.i += 1,
                        Some(c @ ('$' | '`' | '"' | '\\')) => {
                            w.text.push(c);
                            self.i += 1;
                        }
                        Some(_) => w.text.push('\\'),
                        None => return false,
                    }
                }
                '`' if self.backquoted > 0 => return false,
                '$' | '`' => self.expansion(w, dir, env),
                _ => {
                    w.text.push(c);
                    self.i += 1;
                }
            }
        }
        false
    }

    /// `$(...)`, `` `...` ``, `$((...))`, `${...}`, `$NAME`: the text is
    /// kept as written, the commands inside are read.
    fn expansion(&mut self, w: &mut Word, dir: &mut Dir, env: &[(String, String)]) {
        let start = self.i;
        match (self.peek(), self.peek_at(1), self.peek_at(2)) {
            (Some('$'), Some('('), Some('(')) => {
                self.i += 3;
                let mut open = 2usize;
                while let Some(c) = self.peek() {
                    self.i += 1;
                    match c {
                        '(' => open += 1,
                        ')' => {
                            open -= 1;
                            if open == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if open != 0 {
                    self.fail("an arithmetic expansion is not closed");
                }
            }
            (Some('$'), Some('('), _) => {
                self.i += 2;
                let mut inner = dir.clone();
                self.list(Close::Paren, &mut inner, env);
            }
            (Some('`'), _, _) => {
                self.i += 1;
                let mut inner = dir.clone();
                self.backquoted += 1;
                self.list(Close::Backquote, &mut inner, env);
                self.backquoted -= 1;
            }
            (Some('$'), Some('{'), _) => {
                self.i += 2;
                while self.peek().is_some_and(|c| c != '}') {
                    self.i += 1;
                }
                if self.peek() != Some('}') {
                    self.fail("a parameter expansion is not closed");
                    return;
                }
                self.i += 1;
            }
            (Some('$'), Some(c), _) if c.is_ascii_alphanumeric() || c == '_' => {
                self.i += 1;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.i += 1;
                }
            }
            (Some('$'), Some('?' | '#' | '@' | '*' | '!' | '-' | '$'), _) => self.i += 2,
            _ => {
                // A lone `$` is itself.
                w.text.push('$');
                self.i += 1;
                return;
            }
        }
        w.text.extend(&self.s[start..self.i.min(self.s.len())]);
        w.expands = true;
    }

    /// What one simple command runs.
    fn simple(&mut self, words: Vec<Word>, dir: &mut Dir, env: &[(String, String)]) {
        let mut env = env.to_vec();
        let mut rest = words.as_slice();
        // Reserved words that lead a command, and those that end a compound one.
        while let Some(w) = rest.first().filter(|w| !w.expands) {
            match w.text.as_str() {
                "!" | "if" | "then" | "else" | "elif" | "do" | "while" | "until" | "{" | "time" => {
                    rest = &rest[1..]
                }
                "fi" | "done" | "}" | "esac" if rest.len() == 1 => return,
                "for" | "select" | "function" => return,
                "case" => return self.fail("a case statement"),
                _ => break,
            }
        }
        while let Some((name, value)) = rest.first().and_then(assignment) {
            env.push((name, value));
            rest = &rest[1..];
        }
        let Some(program) = rest.first() else {
            return;
        };
        if program.expands {
            self.out.others = true;
            return self.fail("a program named by an expansion");
        }
        let args = &rest[1..];
        let name = program.text.rsplit('/').next().unwrap_or_default();
        match name {
            "git" => {
                if dir.unknown {
                    return self.fail("git runs in a directory the line changes to by a name known only when it runs");
                }
                self.out.git.push(GitCall {
                    program: program.text.clone(),
                    args: args.iter().map(|w| w.text.clone()).collect(),
                    env,
                    dirs: dir.path.clone(),
                    opaque: args.iter().any(|w| w.expands),
                });
            }
            "cd" | "pushd" => {
                let target = args
                    .iter()
                    .find(|w| !w.text.starts_with('-') || w.text == "-");
                match target {
                    Some(w) if !w.expands && w.text != "-" && !w.text.is_empty() => {
                        dir.path.push(w.text.clone())
                    }
                    _ => dir.unknown = true,
                }
            }
            "popd" => dir.unknown = true,
            "env" => self.env_command(args, dir, env),
            "command" | "exec" | "nohup" | "builtin" | "nice" | "stdbuf" | "timeout" | "sudo"
            | "doas" => self.wrapper(name, args, dir, env),
            "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "mksh" => self.shell(args, dir, &env),
            "eval" => {
                let script: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
                self.nested(&script.join(" "), dir, &env);
            }
            "xargs" | "parallel" | "find" | "watch" => {
                self.out.others = true;
                if args
                    .iter()
                    .any(|w| w.text.rsplit('/').next() == Some("git"))
                {
                    self.fail("git run by another program with arguments it makes up");
                }
            }
            _ => self.out.others = true,
        }
    }

    /// `env [-i] [-u NAME] [-C DIR] [NAME=VALUE]... PROGRAM ...`
    fn env_command(&mut self, args: &[Word], dir: &mut Dir, mut env: Vec<(String, String)>) {
        let mut i = 0;
        let mut dir = dir.clone();
        while let Some(w) = args.get(i) {
            let t = w.text.as_str();
            match t {
                "--" => {
                    i += 1;
                    break;
                }
                "-i" | "-" | "--ignore-environment" | "-0" | "--null" | "-v" | "--debug" => i += 1,
                "-u" | "--unset" => i += 2,
                "-C" | "--chdir" => {
                    match args.get(i + 1) {
                        Some(d) if !d.expands => dir.path.push(d.text.clone()),
                        _ => dir.unknown = true,
                    }
                    i += 2;
                }
                _ if t.starts_with("--chdir=") => {
                    dir.path.push(t["--chdir=".len()..].to_string());
                    i += 1;
                }
                _ if t.starts_with("-C") && t.len() > 2 => {
                    dir.path.push(t[2..].to_string());
                    i += 1;
                }
                _ if t.starts_with("-u") || t.starts_with("--unset=") => i += 1,
                _ if t.starts_with('-') => {
                    return self.fail("env with an option this reader does not know");
                }
                _ => break,
            }
        }
        let rest = args.get(i..).unwrap_or_default();
        let mut rest = rest.to_vec();
        while let Some((name, value)) = rest.first().and_then(assignment) {
            env.push((name, value));
            rest.remove(0);
        }
        self.simple(rest, &mut dir, &env);
    }

    /// A program that runs the rest of its words as a command.
    fn wrapper(&mut self, name: &str, args: &[Word], dir: &mut Dir, env: Vec<(String, String)>) {
        let mut i = 0;
        // Options, and the ones that take a value.
        let valued: &[&str] = match name {
            "exec" => &["-a"],
            "nice" => &["-n", "--adjustment"],
            "stdbuf" => &["-i", "-o", "-e"],
            "timeout" => &["-s", "--signal", "-k", "--kill-after"],
            _ => &[],
        };
        while let Some(w) = args.get(i) {
            let t = w.text.as_str();
            if t == "--" {
                i += 1;
                break;
            }
            if !t.starts_with('-') || t == "-" {
                break;
            }
            if matches!(name, "sudo" | "doas") {
                return self.fail("sudo with options");
            }
            if name == "command" && (t.contains('v') || t.contains('V')) {
                // `command -v git` looks git up; it runs nothing.
                self.out.others = true;
                return;
            }
            i += if valued.contains(&t) { 2 } else { 1 };
        }
        if name == "timeout" {
            i += 1; // the duration
        }
        self.simple(args.get(i..).unwrap_or_default().to_vec(), dir, &env);
    }

    /// `sh [options] -c SCRIPT [NAME [ARGS]]`: the script is read as a line.
    fn shell(&mut self, args: &[Word], dir: &mut Dir, env: &[(String, String)]) {
        let mut script_next = false;
        let mut i = 0;
        while let Some(w) = args.get(i) {
            let t = w.text.as_str();
            if script_next {
                if w.expands {
                    return self.fail("sh -c with a script known only when it runs");
                }
                let mut inner = dir.clone();
                return self.nested(t, &mut inner, env);
            }
            match t {
                "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file" => i += 1,
                _ if t.starts_with("--") => {}
                _ if t.starts_with('-') && t.len() > 1 => script_next = t.contains('c'),
                _ if t.starts_with('+') && t.len() > 1 => {}
                _ => break,
            }
            i += 1;
        }
        // A script file, or commands from stdin: run, but not seen here.
        self.out.others = true;
    }

    /// Reads a string as a command line of its own, in this directory.
    fn nested(&mut self, script: &str, dir: &mut Dir, env: &[(String, String)]) {
        let mut inner = Parser {
            s: script.chars().collect(),
            i: 0,
            out: Line::default(),
            heredocs: Vec::new(),
            depth: self.depth + 1,
            backquoted: 0,
        };
        inner.list(Close::End, dir, env);
        if !inner.heredocs.is_empty() && inner.out.unreadable.is_none() {
            inner.out.unreadable = Some("a here-document is not closed".into());
        }
        self.out.git.extend(inner.out.git);
        self.out.others |= inner.out.others;
        if let Some(why) = inner.out.unreadable {
            self.fail(&why);
        }
    }
}

/// `NAME=VALUE`, where NAME is a shell variable name written plainly.
fn assignment(w: &Word) -> Option<(String, String)> {
    let (name, value) = w.text.split_once('=')?;
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_string(), value.to_string()))
}

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;
