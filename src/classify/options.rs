//! git's parse-options, as far as classifying a command line needs it.
//!
//! git reads a builtin's flags with one shared parser (`parse-options.c`),
//! and every spelling it accepts must count the same here: bundled short
//! flags (`-fdx`, `-qam msg`, `-mmsg`), `--opt=value` and `--opt value`,
//! unique abbreviations of long options (`--no-verif`, `--forc`),
//! negations (`--no-force`, and `--verify` for an option named `no-verify`),
//! the last of contradicting flags winning, `--` and `--end-of-options`.
//! A command line git would refuse (an unknown or ambiguous option) runs
//! nothing; its flags are read as far as they can be, never more leniently.

/// Whether and how an option takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Arg {
    /// A flag: `--all`. A value (`--force=true`) makes git refuse the line;
    /// it is read as the flag given, which is what the line asked for.
    No,
    /// `--file x`, `--file=x`, `-Fx`, `-F x`.
    Required,
    /// Only attached: `--gpg-sign=key`, `-Skey`.
    Optional,
    /// Takes the next word unless it is the last one (`--contains [<commit>]`).
    LastArgDefault,
}

/// One option of a command's table.
#[derive(Clone, Copy, Debug)]
pub(super) struct Opt {
    /// `'\0'` when the option has no short form.
    pub short: char,
    /// Empty when the option has no long form.
    pub long: &'static str,
    pub arg: Arg,
    /// Accepts `--no-<long>` (or `--<rest>` for a long name `no-<rest>`).
    pub neg: bool,
}

/// A table row, for the tables in `tables.rs`.
pub(super) const fn opt(short: char, long: &'static str, arg: Arg, neg: bool) -> Opt {
    Opt {
        short,
        long,
        arg,
        neg,
    }
}

impl Opt {
    fn is(&self, name: &str) -> bool {
        if self.long.is_empty() {
            let mut chars = name.chars();
            chars.next() == Some(self.short) && chars.next().is_none()
        } else {
            self.long == name
        }
    }
}

/// One option as the command line gave it.
#[derive(Clone, Debug)]
struct Given {
    opt: Opt,
    value: Option<String>,
    /// `--no-x`.
    unset: bool,
}

/// A command line after its options were read.
#[derive(Clone, Debug, Default)]
pub(super) struct Parsed {
    given: Vec<Given>,
    /// The words that are not options, in order, without `--`.
    pub args: Vec<String>,
    /// How many of `args` came before a `--`, if there was one.
    pub dashdash: Option<usize>,
}

impl Parsed {
    /// Was the flag given and not negated later (`-f`, `--force`, `--force=x`)?
    /// Options are named by their long name, or by their short letter when
    /// they have no long name (`"D"` for `branch -D`).
    pub fn flag(&self, name: &str) -> bool {
        self.given
            .iter()
            .rev()
            .find(|g| g.opt.is(name))
            .is_some_and(|g| !g.unset)
    }

    /// How many times a counting flag was given (`clean -ff`), reset by `--no-x`.
    pub fn count(&self, name: &str) -> usize {
        self.given
            .iter()
            .filter(|g| g.opt.is(name))
            .fold(0, |n, g| if g.unset { 0 } else { n + 1 })
    }

    /// The value of the option's last occurrence, unless negated.
    pub fn value(&self, name: &str) -> Option<&str> {
        let last = self.given.iter().rev().find(|g| g.opt.is(name))?;
        if last.unset {
            None
        } else {
            last.value.as_deref()
        }
    }

    /// Every value the option was given, in order; `--no-x` clears them
    /// (`fetch --refmap=a --refmap=b`).
    pub fn values(&self, name: &str) -> Vec<&str> {
        let mut out = Vec::new();
        for g in self.given.iter().filter(|g| g.opt.is(name)) {
            if g.unset {
                out.clear();
            } else if let Some(v) = &g.value {
                out.push(v.as_str());
            }
        }
        out
    }

    /// Was the option given at all, with or without a value (`--rebase`, `--rebase=false`)?
    pub fn given(&self, name: &str) -> bool {
        self.given.iter().any(|g| g.opt.is(name) && !g.unset)
    }

    /// Was the option's last occurrence a negation (`--no-verify` for an option `verify`)?
    pub fn negated(&self, name: &str) -> bool {
        self.given
            .iter()
            .rev()
            .find(|g| g.opt.is(name))
            .is_some_and(|g| g.unset)
    }

    /// The last given of these options, and whether it was negated
    /// (`--no-ff` after `--ff-only` is `("ff", true)`).
    pub fn last_given<'n>(&self, names: &[&'n str]) -> Option<(&'n str, bool)> {
        self.given
            .iter()
            .rev()
            .find_map(|g| names.iter().find(|n| g.opt.is(n)).map(|n| (*n, g.unset)))
    }

    /// A flag's state, `default` when not given (`--guess` is on unless `--no-guess`).
    pub fn enabled(&self, name: &str, default: bool) -> bool {
        match self.given.iter().rev().find(|g| g.opt.is(name)) {
            Some(g) => !g.unset,
            None => default,
        }
    }

    /// Which of these options was given last (`reset --soft --hard` is `hard`).
    pub fn last_of<'n>(&self, names: &[&'n str]) -> Option<&'n str> {
        self.given
            .iter()
            .rev()
            .filter(|g| !g.unset)
            .find_map(|g| names.iter().find(|n| g.opt.is(n)).copied())
    }
}

/// Reads `args` (the words after the subcommand) against `table`, as
/// parse-options does. `stop_at_non_option` ends option parsing at the first
/// positional word (git's `PARSE_OPT_STOP_AT_NON_OPTION`).
pub(super) fn parse(args: &[String], table: &[Opt], stop_at_non_option: bool) -> Parsed {
    let mut out = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            out.dashdash = Some(out.args.len());
            out.args.extend(args[i..].iter().cloned());
            break;
        }
        if arg == "--end-of-options" {
            out.args.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(body) = arg.strip_prefix("--") {
            if let Some((opt, unset, inline)) = parse_long(table, body) {
                let value = if unset {
                    None
                } else {
                    match (opt.arg, inline) {
                        (_, Some(v)) => Some(v),
                        (Arg::Required, None) | (Arg::LastArgDefault, None) if i < args.len() => {
                            i += 1;
                            Some(args[i - 1].clone())
                        }
                        _ => None,
                    }
                };
                out.given.push(Given { opt, value, unset });
            }
            continue;
        }
        if arg.len() > 1 && arg.starts_with('-') {
            let bundle: Vec<char> = arg.chars().skip(1).collect();
            for (at, c) in bundle.iter().enumerate() {
                let Some(opt) = table.iter().find(|o| o.short == *c && *c != '\0') else {
                    // Unknown: git refuses the whole line; read no further in this word.
                    break;
                };
                let rest: String = bundle[at + 1..].iter().collect();
                let value = match opt.arg {
                    Arg::No => None,
                    _ if !rest.is_empty() => Some(rest),
                    Arg::Required | Arg::LastArgDefault if i < args.len() => {
                        i += 1;
                        Some(args[i - 1].clone())
                    }
                    _ => None,
                };
                let takes_rest = opt.arg != Arg::No;
                out.given.push(Given {
                    opt: *opt,
                    value,
                    unset: false,
                });
                if takes_rest {
                    break;
                }
            }
            continue;
        }
        out.args.push(arg.clone());
        if stop_at_non_option {
            out.args.extend(args[i..].iter().cloned());
            break;
        }
    }
    out
}

/// `parse_long_opt` of git's parse-options.c: exact names first, then a
/// unique abbreviation, with `no-` negation either way. Returns the option,
/// whether it was negated, and the `=value` part. `None` for an unknown or
/// ambiguous name (git refuses the line).
fn parse_long(table: &[Opt], arg: &str) -> Option<(Opt, bool, Option<String>)> {
    let (name, inline) = match arg.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (arg, None),
    };
    let mut abbrev: Option<(Opt, bool)> = None;
    let mut ambiguous = false;
    let mut note = |o: &Opt, unset: bool, abbrev: &mut Option<(Opt, bool)>| {
        if abbrev.is_some() {
            ambiguous = true;
        }
        *abbrev = Some((*o, unset));
    };
    for o in table.iter().filter(|o| !o.long.is_empty()) {
        let mut long = o.long;
        let mut opt_unset = false;
        if !name.starts_with("no-") && o.neg {
            if let Some(rest) = long.strip_prefix("no-") {
                long = rest;
                opt_unset = true;
            }
        }
        if name == long {
            return Some((*o, opt_unset, inline));
        }
        if long.starts_with(name) {
            note(o, opt_unset, &mut abbrev);
            continue;
        }
        if !o.neg {
            continue;
        }
        if "no-".starts_with(name) {
            note(o, !opt_unset, &mut abbrev);
            continue;
        }
        let Some(negated) = name.strip_prefix("no-") else {
            continue;
        };
        if negated == long {
            return Some((*o, !opt_unset, inline));
        }
        if long.starts_with(negated) {
            note(o, !opt_unset, &mut abbrev);
        }
    }
    if ambiguous {
        return None;
    }
    abbrev.map(|(o, unset)| (o, unset, inline))
}

#[cfg(test)]
mod tests {
    use super::Arg::*;
    use super::*;

    const T: &[Opt] = &[
        opt('n', "no-verify", No, true),
        opt('m', "message", Required, true),
        opt('q', "quiet", No, true),
        opt('a', "all", No, true),
        opt('v', "verbose", No, true),
        opt('S', "gpg-sign", Optional, true),
        opt('\0', "force", No, true),
        opt('\0', "force-with-lease", Optional, true),
    ];

    fn p(words: &[&str]) -> Parsed {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        parse(&words, T, false)
    }

    #[test]
    fn bundles_values_and_negations() {
        let got = p(&["-qam", "msg", "file"]);
        assert!(got.flag("quiet") && got.flag("all"));
        assert_eq!(got.value("message"), Some("msg"));
        assert_eq!(got.args, ["file"]);
        assert_eq!(p(&["-mmsg"]).value("message"), Some("msg"));
        assert_eq!(p(&["--message=a=b"]).value("message"), Some("a=b"));
        assert!(p(&["--no-verify"]).flag("no-verify"));
        assert!(!p(&["--no-verify", "--verify"]).flag("no-verify"));
        assert!(!p(&["-n", "--no-no-verify"]).flag("no-verify"));
        assert!(p(&["--no-verif"]).flag("no-verify"));
        assert!(!p(&["-n", "--verif"]).flag("no-verify"));
        // `--ver` could be --verbose or --verify: git refuses it, -n stands.
        assert!(p(&["-n", "--ver"]).flag("no-verify"));
        assert!(!p(&["--forc"]).flag("force"));
        assert!(p(&["--force-wi"]).flag("force-with-lease"));
        assert!(p(&["--force-w"]).flag("force-with-lease"));
        assert!(p(&["--force=true"]).flag("force"));
        assert!(!p(&["--force", "--no-force"]).flag("force"));
        // `--f` could be --force or --force-with-lease: git refuses it.
        assert!(!p(&["--f"]).flag("force"));
        // `--no-v` could be --no-verify or --no-verbose.
        assert!(!p(&["--no-v"]).flag("no-verify"));
        assert_eq!(p(&["-S", "x"]).args, ["x"]);
    }

    #[test]
    fn dashdash_and_end_of_options() {
        let got = p(&["a", "--", "-n", "b"]);
        assert_eq!(got.args, ["a", "-n", "b"]);
        assert_eq!(got.dashdash, Some(1));
        assert!(!got.flag("no-verify"));
        let got = p(&["--end-of-options", "-n"]);
        assert_eq!(got.args, ["-n"]);
        assert_eq!(got.dashdash, None);
    }
}
