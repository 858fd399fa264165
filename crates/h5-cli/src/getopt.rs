//! The getopt-style scanning of the compatibility forms of `h5 dump`, `h5 stat` and `h5 diff`:
//! clustered short options (`-dS`), a short option's argument attached or in the next word,
//! long options with `=VALUE` or the next word, `--` ending the options, the first operand
//! ending them too. The reference tools scan with the HDF5 tools library's `get_option`; what
//! differs between them is given as [`Rules`]: the option tables (short ones as a
//! `get_option` specification such as `"a:b*c"`, see [`spec_arg`]), how a long name is matched
//! (whole names, or abbreviations if a tool's table says so), whether a missing argument is an
//! error, and whether long options follow `get_option`'s own rules ([`Rules::get_option`]).
//!
//! [`Scanner`] yields one option at a time, keeping `get_option`'s position inside a word (h5dump
//! relies on it: after an `*` option the scan goes on at the same character position of the
//! next word); the options end at the first operand, as with `get_option`.

/// Whether an option takes an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// None.
    No,
    /// One, attached or in the next word (`=VALUE` or the next word for long options).
    Required,
    /// One, only attached (`-v2`, `--verbose=2`).
    Optional,
    /// `get_option`'s `*` (short options only): the next word, unless it is the last word or
    /// begins with `-`; the rest of the option's own word is not looked at, and the scan goes on
    /// in the next word at the same character position.
    Wildcard,
}

/// The argument short option `c` takes under a `get_option` specification: each option
/// letter, followed by `:` for [`Arg::Required`] or `*` for [`Arg::Wildcard`]; `None` for a
/// letter the specification does not list (`:` and `*` themselves are never options).
pub fn spec_arg(spec: &str, c: char) -> Option<Arg> {
    if matches!(c, ':' | '*') {
        return None;
    }
    let mut chars = spec.chars().peekable();
    while let Some(o) = chars.next() {
        let arg = match chars.peek() {
            Some(':') => Arg::Required,
            Some('*') => Arg::Wildcard,
            _ => Arg::No,
        };
        if arg != Arg::No {
            chars.next();
        }
        if o == c {
            return Some(arg);
        }
    }
    None
}

/// The argument and short equivalent of long option `name` in a table of (name, argument,
/// short option), matching whole names only (as `get_option` does).
pub fn whole_name(table: &[(&str, Arg, char)], name: &str) -> Option<(Arg, char)> {
    table
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, arg, c)| (arg, c))
}

/// The option rules of one tool.
pub struct Rules {
    /// The argument a short option takes; `None` for an unknown option.
    pub short: fn(char) -> Option<Arg>,
    /// The argument and short equivalent of a long option name (as written, before any
    /// `=`); `None` for an unknown one.
    pub long: fn(&str) -> Option<(Arg, char)>,
    /// Whether a required argument missing at the end of the words is an error
    /// ([`Bad::Missing`]), or the option is given without a value.
    pub missing_is_error: bool,
    /// `get_option`'s rules for long options (h5dump, h5stat): a required argument not given
    /// with `=` is the next word only when that word does not begin with `-`, and none is no
    /// error (whatever [`Rules::missing_is_error`] says); a value given to a long option that
    /// takes none is an error ([`Bad::Unexpected`]). Otherwise the next word is always the
    /// argument, and a value given to a flag is ignored.
    pub get_option: bool,
}

/// A word that is not a valid option.
#[derive(Debug, PartialEq, Eq)]
pub enum Bad {
    /// An unknown long option: its name, without `--` and any `=VALUE`.
    Long(String),
    /// A value given to a long option that takes none (only with [`Rules::get_option`]).
    Unexpected(String),
    /// An unknown short option.
    Short(char),
    /// A required argument missing (only when [`Rules::missing_is_error`]).
    Missing(char),
}

impl Bad {
    /// What `get_option` prints for it, program name first (`h5dump: unknown option "Z"`).
    pub fn message(&self, program: &str) -> String {
        match self {
            Bad::Long(name) => format!("{program}: unknown option \"{name}\"\n"),
            Bad::Unexpected(name) => {
                format!("{program}: no option required for \"{name}\" flag\n")
            }
            Bad::Short(c) => format!("{program}: unknown option \"{c}\"\n"),
            Bad::Missing(c) => format!("{program}: value expected for option \"{c}\"\n"),
        }
    }
}

/// A scan of a command line, one option at a time (`get_option`'s `optind` and `sp`).
pub struct Scanner<'a> {
    rules: &'a Rules,
    args: &'a [String],
    /// The word being scanned; once the scan has returned `None`, the first operand
    /// (the word after `--` if the options ended with it).
    pub index: usize,
    /// The character position in that word (1: the word's start, after its `-`).
    pos: usize,
}

impl<'a> Scanner<'a> {
    /// A scan of `args` from its first word.
    pub fn new(rules: &'a Rules, args: &'a [String]) -> Self {
        Scanner {
            rules,
            args,
            index: 0,
            pos: 1,
        }
    }

    /// On to the next character of a word of `len` characters, or to the next word.
    fn step(&mut self, len: usize) {
        self.pos += 1;
        if self.pos >= len {
            self.index += 1;
            self.pos = 1;
        }
    }

    /// A long option, `body` being its word after `--` (`index` already past that word).
    fn long(&mut self, body: &str) -> Result<(char, Option<String>), Bad> {
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let (arg, c) = (self.rules.long)(name).ok_or_else(|| Bad::Long(name.to_string()))?;
        let value = match (arg, value) {
            (Arg::No, Some(_)) if self.rules.get_option => {
                return Err(Bad::Unexpected(name.to_string()))
            }
            (Arg::Required | Arg::Wildcard, None) => match self.args.get(self.index) {
                Some(v) if !(self.rules.get_option && v.starts_with('-')) => {
                    self.index += 1;
                    Some(v.clone())
                }
                None if self.rules.missing_is_error && !self.rules.get_option => {
                    return Err(Bad::Missing(c))
                }
                _ => None,
            },
            (_, v) => v,
        };
        Ok((c, value))
    }
}

impl Iterator for Scanner<'_> {
    type Item = Result<(char, Option<String>), Bad>;

    /// The next option with its argument, an error for a bad one (the scan can go on after
    /// it), or `None` when the options end: at an operand, after `--`, or past the words.
    fn next(&mut self) -> Option<Self::Item> {
        let args = self.args;
        let word = args.get(self.index)?;
        if self.pos == 1 {
            if !word.starts_with('-') || word.len() == 1 {
                return None;
            }
            if word == "--" {
                self.index += 1;
                return None;
            }
            if let Some(long) = word.strip_prefix("--") {
                self.index += 1;
                return Some(self.long(long));
            }
        }
        let chars: Vec<char> = word.chars().collect();
        // Past the end of a shorter word (after a `*` option): nothing there is an option.
        let Some(&c) = chars.get(self.pos) else {
            self.index += 1;
            self.pos = 1;
            return Some(Err(Bad::Short('?')));
        };
        let rest: String = chars[self.pos + 1..].iter().collect();
        let Some(arg) = (self.rules.short)(c) else {
            self.step(chars.len());
            return Some(Err(Bad::Short(c)));
        };
        Some(Ok(match arg {
            Arg::No => {
                self.step(chars.len());
                (c, None)
            }
            Arg::Required => {
                self.index += 1;
                self.pos = 1;
                if !rest.is_empty() {
                    (c, Some(rest))
                } else if let Some(v) = args.get(self.index) {
                    self.index += 1;
                    (c, Some(v.clone()))
                } else if self.rules.missing_is_error {
                    return Some(Err(Bad::Missing(c)));
                } else {
                    (c, None)
                }
            }
            Arg::Optional => {
                self.index += 1;
                self.pos = 1;
                (c, (!rest.is_empty()).then_some(rest))
            }
            Arg::Wildcard => {
                self.index += 1;
                match args.get(self.index) {
                    Some(v) if self.index + 1 < args.len() && !v.starts_with('-') => {
                        self.index += 1;
                        (c, Some(v.clone()))
                    }
                    _ => (c, None),
                }
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn rules(missing_is_error: bool) -> Rules {
        Rules {
            short: |c| match c {
                'n' => Some(Arg::Required),
                'v' => Some(Arg::Optional),
                'q' => Some(Arg::No),
                _ => None,
            },
            long: |name| match name {
                "count" => Some((Arg::Required, 'n')),
                "quiet" => Some((Arg::No, 'q')),
                _ => None,
            },
            missing_is_error,
            get_option: false,
        }
    }

    #[test]
    fn clusters_arguments_and_ends() {
        let r = rules(true);
        let a = words("-qn3 -n 4 --count=5 --count 6 -v2 -qv file -- -q");
        let s = |c, v: &str| Ok((c, Some(v.to_string())));
        let (o, end) = all(&r, &a);
        assert_eq!(
            o,
            [
                Ok(('q', None)),
                s('n', "3"),
                s('n', "4"),
                s('n', "5"),
                s('n', "6"),
                s('v', "2"),
                Ok(('q', None)),
                Ok(('v', None)),
            ]
        );
        // The scan stops at the first operand.
        assert_eq!(end, 8);
    }

    #[test]
    fn unknown_and_missing() {
        let strict = rules(true);
        let (o, _) = all(&strict, &words("-qz"));
        assert_eq!(o, [Ok(('q', None)), Err(Bad::Short('z'))]);
        let (o, _) = all(&strict, &words("--cou=1"));
        assert_eq!(o, [Err(Bad::Long("cou".into()))]);
        let (o, _) = all(&strict, &words("-qn"));
        assert_eq!(o, [Ok(('q', None)), Err(Bad::Missing('n'))]);
        let lenient = rules(false);
        let (o, _) = all(&lenient, &words("-qn"));
        assert_eq!(o, [Ok(('q', None)), Ok(('n', None))]);
    }

    /// h5dump's rules: `get_option` long options, `*` options, the scan stopping at the
    /// first operand.
    fn h5dump_like() -> Rules {
        Rules {
            short: |c| spec_arg("d:n*Hl:", c),
            long: |name| match name {
                "dataset" => Some((Arg::Required, 'd')),
                "contents" => Some((Arg::Optional, 'n')),
                "header" => Some((Arg::No, 'H')),
                _ => None,
            },
            missing_is_error: true,
            get_option: true,
        }
    }

    /// Every item of a scan of `a`, and where the scan stopped.
    fn all(r: &Rules, a: &[String]) -> (Vec<<Scanner<'static> as Iterator>::Item>, usize) {
        let mut s = Scanner::new(r, a);
        let out = s.by_ref().collect();
        (out, s.index)
    }

    #[test]
    fn specifications() {
        assert_eq!(spec_arg("a:b*c", 'a'), Some(Arg::Required));
        assert_eq!(spec_arg("a:b*c", 'b'), Some(Arg::Wildcard));
        assert_eq!(spec_arg("a:b*c", 'c'), Some(Arg::No));
        assert_eq!(spec_arg("a:b*c", ':'), None);
        assert_eq!(spec_arg("a:b*c", 'z'), None);
    }

    #[test]
    fn get_option_rules() {
        let r = h5dump_like();
        let s = |v: &str| Ok(('d', Some(v.to_string())));
        // A long option's argument: `=`, or a next word not beginning with `-`.
        let (o, end) = all(&r, &words("--dataset=/a --dataset /b --dataset -H f"));
        assert_eq!(o, [s("/a"), s("/b"), Ok(('d', None)), Ok(('H', None))]);
        assert_eq!(end, 5);
        // A flag given a value; an unknown name (abbreviations are unknown).
        let (o, _) = all(&r, &words("--header=1 --data=x"));
        assert_eq!(
            o,
            [
                Err(Bad::Unexpected("header".into())),
                Err(Bad::Long("data".into()))
            ]
        );
        // `*`: the next word unless it is the last; the scan stops at the first operand and
        // takes nothing after it.
        let (o, end) = all(&r, &words("-n 1 -n f"));
        assert_eq!(o, [Ok(('n', Some("1".into()))), Ok(('n', None))]);
        assert_eq!(end, 3);
        let (o, end) = all(&r, &words("-n f g -H"));
        assert_eq!(o, [Ok(('n', Some("f".into())))]);
        assert_eq!(end, 2);
        // After a clustered `*` option, the next word is scanned from the same position.
        let (o, end) = all(&r, &words("-Hn tall.h5"));
        assert_eq!(
            o,
            [
                Ok(('H', None)),
                Ok(('n', None)),
                Ok(('l', Some("l.h5".into())))
            ]
        );
        assert_eq!(end, 2);
        // `--` ends the options; a short option's missing argument is an error.
        let (o, end) = all(&r, &words("-H -- -H"));
        assert_eq!((o.len(), end), (1, 2));
        let (o, _) = all(&r, &words("-Hd"));
        assert_eq!(o, [Ok(('H', None)), Err(Bad::Missing('d'))]);
        assert_eq!(
            Bad::Missing('d').message("h5dump"),
            "h5dump: value expected for option \"d\"\n"
        );
    }
}
