//! The getopt-style scanning of the compatibility forms of `h5 stat` and `h5 diff`: clustered
//! short options (`-dS`), a short option's argument attached or in the next word, long options
//! with `=VALUE` or the next word, `--` ending the options. What differs between the reference
//! tools is given as [`Rules`]: the option tables, how a long name is matched (h5stat accepts
//! abbreviations, h5diff only whole names) and whether a missing argument is an error.

/// Whether an option takes an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// None.
    No,
    /// One, attached or in the next word (`=VALUE` for long options).
    Required,
    /// One, only attached (`-v2`, `--verbose=2`).
    Optional,
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
}

/// One word of the command line, scanned.
pub enum Scanned {
    /// Options, each with its argument.
    Options(Vec<(char, Option<String>)>),
    /// Not an option: an operand.
    Operand,
    /// `--`: the words after it are operands.
    EndOfOptions,
}

/// A word that is not a valid option.
#[derive(Debug, PartialEq, Eq)]
pub enum Bad {
    /// An unknown long option: the whole word.
    Long(String),
    /// An unknown short option.
    Short(char),
    /// A required argument missing (only when [`Rules::missing_is_error`]).
    Missing(char),
}

impl Rules {
    /// Scan `args[*i]`; `*i` is left on the last word used (an option's argument in the
    /// next word moves it one further).
    pub fn scan(&self, args: &[String], i: &mut usize) -> Result<Scanned, Bad> {
        let a = &args[*i];
        if a == "--" {
            return Ok(Scanned::EndOfOptions);
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let (arg, c) = (self.long)(name).ok_or_else(|| Bad::Long(a.clone()))?;
            let value = match (arg, value) {
                (Arg::Required, None) => self.next(args, i, c)?,
                (_, v) => v,
            };
            return Ok(Scanned::Options(vec![(c, value)]));
        }
        if !(a.starts_with('-') && a.len() > 1) {
            return Ok(Scanned::Operand);
        }
        let chars: Vec<char> = a[1..].chars().collect();
        let mut opts = Vec::new();
        for (k, &c) in chars.iter().enumerate() {
            let rest: String = chars[k + 1..].iter().collect();
            match (self.short)(c).ok_or(Bad::Short(c))? {
                Arg::No => opts.push((c, None)),
                Arg::Required => {
                    let v = if rest.is_empty() {
                        self.next(args, i, c)?
                    } else {
                        Some(rest)
                    };
                    opts.push((c, v));
                    break;
                }
                Arg::Optional => {
                    opts.push((c, (!rest.is_empty()).then_some(rest)));
                    break;
                }
            }
        }
        Ok(Scanned::Options(opts))
    }

    /// The next word as option `c`'s argument.
    fn next(&self, args: &[String], i: &mut usize, c: char) -> Result<Option<String>, Bad> {
        *i += 1;
        match args.get(*i) {
            Some(v) => Ok(Some(v.clone())),
            None if self.missing_is_error => Err(Bad::Missing(c)),
            None => Ok(None),
        }
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
        }
    }

    fn options(r: &Rules, args: &[String], i: &mut usize) -> Vec<(char, Option<String>)> {
        match r.scan(args, i) {
            Ok(Scanned::Options(o)) => o,
            _ => panic!("options expected at word {i}"),
        }
    }

    #[test]
    fn clusters_arguments_and_ends() {
        let r = rules(true);
        let a = words("-qn3 -n 4 --count=5 --count 6 -v2 -qv file -- -q");
        let mut i = 0;
        let s = |v: &str| Some(v.to_string());
        assert_eq!(options(&r, &a, &mut i), [('q', None), ('n', s("3"))]);
        i += 1;
        assert_eq!(options(&r, &a, &mut i), [('n', s("4"))]);
        assert_eq!(i, 2);
        i += 1;
        assert_eq!(options(&r, &a, &mut i), [('n', s("5"))]);
        i += 1;
        assert_eq!(options(&r, &a, &mut i), [('n', s("6"))]);
        i += 1;
        assert_eq!(options(&r, &a, &mut i), [('v', s("2"))]);
        i += 1;
        assert_eq!(options(&r, &a, &mut i), [('q', None), ('v', None)]);
        i += 1;
        assert!(matches!(r.scan(&a, &mut i), Ok(Scanned::Operand)));
        i += 1;
        assert!(matches!(r.scan(&a, &mut i), Ok(Scanned::EndOfOptions)));
    }

    #[test]
    fn unknown_and_missing() {
        let mut i = 0;
        let strict = rules(true);
        assert_eq!(
            strict.scan(&words("-qz"), &mut i).err(),
            Some(Bad::Short('z'))
        );
        assert_eq!(
            strict.scan(&words("--cou=1"), &mut i).err(),
            Some(Bad::Long("--cou=1".into()))
        );
        assert_eq!(
            strict.scan(&words("-qn"), &mut i).err(),
            Some(Bad::Missing('n'))
        );
        i = 0;
        let lenient = rules(false);
        assert_eq!(
            options(&lenient, &words("-qn"), &mut i),
            [('q', None), ('n', None)]
        );
    }
}
