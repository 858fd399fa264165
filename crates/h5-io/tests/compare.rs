//! The deep compare (`h5_io::compare`) against what the reference h5diff 1.10.8 finds on the
//! files of its own test suite (the counts and values are h5diff's on the same objects).

use h5_io::compare::{
    compare_datasets, compare_files, CompareOptions, DifferenceKind, Number, NumberDifference,
    Value,
};
use h5_io::File;

fn open(name: &str) -> Option<File> {
    let p = h5_oracle::corpus("h5diff").join(name);
    if !p.exists() {
        eprintln!("{} not found; skipped", p.display());
        return None;
    }
    Some(File::open(p).expect("open"))
}

fn count(f: &File, a: &str, b: &str, o: &CompareOptions) -> u64 {
    let (x, y) = (f.dataset(a).unwrap(), f.dataset(b).unwrap());
    let c = compare_datasets(&x, &y, o).unwrap();
    assert_eq!(c.not_comparable, None);
    c.differences
}

#[test]
fn counts_under_every_tolerance() {
    let Some(f) = open("h5diff_basic1.h5") else {
        return;
    };
    // `h5diff [OPT] h5diff_basic1.h5 h5diff_basic1.h5 g1/d1 g1/d2` (and g1/fp1 g1/fp2).
    let plain = CompareOptions::default();
    let relative = CompareOptions {
        relative: Some(0.05),
        ..CompareOptions::default()
    };
    let epsilon = CompareOptions {
        use_system_epsilon: true,
        ..CompareOptions::default()
    };
    let capped = CompareOptions {
        max_differences: Some(2),
        ..CompareOptions::default()
    };
    assert_eq!(count(&f, "/g1/d1", "/g1/d2", &plain), 5);
    assert_eq!(count(&f, "/g1/d1", "/g1/d2", &relative), 2);
    assert_eq!(count(&f, "/g1/d1", "/g1/d2", &epsilon), 2);
    assert_eq!(count(&f, "/g1/d1", "/g1/d2", &capped), 2);
    assert_eq!(count(&f, "/g1/fp1", "/g1/fp2", &plain), 4);
    assert_eq!(count(&f, "/g1/fp1", "/g1/fp2", &epsilon), 2);
}

#[test]
fn positions_and_values_of_integer_differences() {
    let Some(f) = open("h5diff_basic1.h5") else {
        return;
    };
    // `h5diff -r h5diff_basic1.h5 h5diff_basic1.h5 g1/dset5 g1/dset6`.
    let (a, b) = (
        f.dataset("/g1/dset5").unwrap(),
        f.dataset("/g1/dset6").unwrap(),
    );
    let c = compare_datasets(&a, &b, &CompareOptions::default()).unwrap();
    assert_eq!(c.differences, 5);
    let got: Vec<(Vec<u64>, Value, Value)> = c
        .details
        .iter()
        .map(|d| (d.position.clone(), d.first, d.second))
        .collect();
    let int = |v| Value::Number(Number::Int(v));
    assert_eq!(
        got,
        vec![
            (vec![0, 0], int(100), int(120)),
            (vec![0, 1], int(100), int(80)),
            (vec![1, 0], int(100), int(0)),
            (vec![1, 1], int(0), int(100)),
            (vec![2, 1], int(100), int(50)),
        ]
    );
    assert!(c
        .details
        .iter()
        .all(|d| d.kind == DifferenceKind::Number(NumberDifference::Absolute)));
    // Only the details are capped; the count goes on.
    let few = CompareOptions {
        keep_details: 2,
        ..CompareOptions::default()
    };
    let c = compare_datasets(&a, &b, &few).unwrap();
    assert_eq!((c.differences, c.details.len()), (5, 2));
}

#[test]
fn datasets_of_different_classes_are_not_comparable() {
    let Some(f) = open("h5diff_basic1.h5") else {
        return;
    };
    let (a, b) = (
        f.dataset("/g1/dset5").unwrap(),
        f.dataset("/g1/d1").unwrap(),
    );
    let c = compare_datasets(&a, &b, &CompareOptions::default()).unwrap();
    assert!(c.not_comparable.is_some());
    assert_eq!(c.differences, 0);
}

#[test]
fn whole_files() {
    let (Some(a), Some(b)) = (open("h5diff_basic1.h5"), open("h5diff_basic2.h5")) else {
        return;
    };
    // `h5diff -v h5diff_basic1.h5 h5diff_basic2.h5`: /g1/dset1 in both with 5 differences,
    // /g1/dset2, /g1/dset4 and /g2 (with nine datasets) only in the second file.
    let r = compare_files(&a, &b, &CompareOptions::default()).unwrap();
    assert!(!r.is_same());
    assert_eq!(&r.only_in_second[..3], ["/g1/dset2", "/g1/dset4", "/g2"]);
    assert_eq!(r.only_in_second.len(), 12);
    assert!(r.only_in_first.iter().any(|p| p == "/g1/fp1"));
    let paths: Vec<&str> = r.datasets.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["/g1/dset1"]);
    assert_eq!(r.differences(), 5);
    let same = compare_files(&a, &a, &CompareOptions::default()).unwrap();
    assert!(same.is_same());
}

#[test]
fn number_rules() {
    use h5_io::compare::compare_numbers;
    let o = CompareOptions::default();
    let f = |v: f64| Number::Float {
        value: v,
        single: false,
    };
    // Two NaNs are equal, a NaN and a number differ; with --nan every NaN differs.
    assert_eq!(compare_numbers(f(f64::NAN), f(f64::NAN), &o), None);
    assert_eq!(
        compare_numbers(f(f64::NAN), f(1.0), &o),
        Some(NumberDifference::Absolute)
    );
    let nan = CompareOptions {
        no_nans: true,
        ..CompareOptions::default()
    };
    assert!(compare_numbers(f(f64::NAN), f(f64::NAN), &nan).is_some());
    let p = CompareOptions {
        relative: Some(0.1),
        ..CompareOptions::default()
    };
    assert_eq!(
        compare_numbers(Number::Int(0), Number::Int(3), &p),
        Some(NumberDifference::NotComparable)
    );
    assert_eq!(
        compare_numbers(Number::Int(10), Number::Int(15), &p),
        Some(NumberDifference::Relative(0.5))
    );
    assert_eq!(compare_numbers(Number::Int(10), Number::Int(10), &p), None);
}

// h5diff's whole comparison through the library (`compare_sources` over `FileSource`),
// against the reference h5diff 1.10.8 run with the same options on the same files: the exit
// status, the total of the differences it reports, and the count of each dataset and
// attribute it reports on.

mod whole {
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::process::Command;

    use h5_io::compare::{
        diff_files, DiffOptions, Event, NotComparable, ObjectType, Outcome, Summary,
    };
    use h5_io::File;

    /// What h5diff -v reports: exit status, total, and the count after each
    /// `dataset:` / `attribute:` line, by the line's two names.
    #[derive(Debug, Default, PartialEq)]
    struct Report {
        status: i32,
        total: u64,
        datasets: BTreeMap<String, u64>,
        attributes: BTreeMap<String, u64>,
    }

    fn dir() -> PathBuf {
        h5_oracle::corpus("h5diff")
    }

    /// `h5diff -v FLAGS FILE1 FILE2 OBJECTS`, or `None` (with the reason printed) when
    /// h5diff or the files are absent.
    fn reference(flags: &[&str], files: [&str; 2], objects: &[&str]) -> Option<Report> {
        let exe = h5_oracle::require("h5diff", h5_oracle::tool("h5diff"))?;
        if files.iter().any(|f| !dir().join(f).exists()) {
            eprintln!("corpus file of {files:?} not found; skipped");
            return None;
        }
        let out = Command::new(exe)
            .current_dir(dir())
            .arg("-v")
            .args(flags)
            .args(files)
            .args(objects)
            .output()
            .expect("run h5diff");
        let text = String::from_utf8_lossy(&out.stdout);
        let mut r = Report {
            status: out.status.code().unwrap_or(-1),
            ..Report::default()
        };
        let mut current: Option<(bool, String)> = None;
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("dataset: ") {
                current = Some((true, rest.to_string()));
            } else if let Some(rest) = line.strip_prefix("attribute: ") {
                current = Some((false, rest.to_string()));
            } else if let Some(n) = line.strip_suffix(" differences found") {
                let Ok(n) = n.trim().parse::<u64>() else {
                    continue;
                };
                r.total += n;
                match current.take() {
                    Some((true, name)) => r.datasets.insert(name, n),
                    Some((false, name)) => r.attributes.insert(name, n),
                    None => None,
                };
            }
        }
        Some(r)
    }

    /// The library's comparison with the options `flags` stand for.
    fn ours(flags: &[&str], files: [&str; 2], objects: &[&str]) -> (Summary, Report) {
        let mut o = DiffOptions {
            visit_identical: true,
            ..DiffOptions::default()
        };
        let mut it = flags.iter();
        while let Some(f) = it.next() {
            let mut value = || it.next().expect("option value").to_string();
            match *f {
                "-r" => {}
                "--follow-symlinks" => o.follow_symlinks = true,
                "--no-dangling-links" => o.no_dangling_links = true,
                "--nan" => o.values.no_nans = true,
                "--use-system-epsilon" => o.values.use_system_epsilon = true,
                "-d" => o.values.delta = value().parse().ok(),
                "-p" => o.values.relative = value().parse().ok(),
                "--exclude-path" => o.exclude_paths.push(value()),
                other => panic!("no mapping for {other}"),
            }
        }
        let open = |f: &str| File::open(dir().join(f)).expect("open");
        let (a, b) = (open(files[0]), open(files[1]));
        // The differences sent as events, by the values being compared.
        let mut events = 0u64;
        let mut report = |e: Event<'_>| {
            if let Event::Difference { .. } = e {
                events += 1;
            }
        };
        let names = (objects.first().copied(), objects.get(1).copied());
        let s = diff_files(&a, &b, names, &o, &mut report);
        let mut r = Report {
            status: s.exit_status(),
            total: s.differences,
            ..Report::default()
        };
        let count = |o: &Outcome| match o {
            Outcome::Same | Outcome::NotComparable(_) => 0,
            Outcome::Different(n) => *n,
        };
        for obj in &s.objects {
            if obj.kind == ObjectType::Dataset {
                let key = format!("<{}> and <{}>", obj.first, obj.second);
                r.datasets.insert(key, count(&obj.outcome));
            }
            for a in &obj.attributes {
                let key = format!(
                    "<{} of <{}>> and <{} of <{}>>",
                    a.name, obj.first, a.name, obj.second
                );
                if !matches!(a.outcome, Outcome::NotComparable(_)) {
                    r.attributes.insert(key, count(&a.outcome));
                }
            }
        }
        // Every element difference counted was sent (regions and null references count
        // without one only through their own events).
        assert!(
            events <= s.differences,
            "{events} events, {} differences",
            s.differences
        );
        (s, r)
    }

    /// Ours against h5diff's; returns our summary.
    fn same(flags: &[&str], files: [&str; 2], objects: &[&str]) -> Option<Summary> {
        let theirs = reference(flags, files, objects)?;
        let (summary, mine) = ours(flags, files, objects);
        assert_eq!(
            mine.status, theirs.status,
            "exit status of {flags:?} {files:?} {objects:?}"
        );
        assert_eq!(
            mine.total, theirs.total,
            "total of {flags:?} {files:?} {objects:?}"
        );
        for (name, n) in &theirs.datasets {
            assert_eq!(
                mine.datasets.get(name),
                Some(n),
                "dataset {name} of {files:?}"
            );
        }
        for (name, n) in &theirs.attributes {
            assert_eq!(
                mine.attributes.get(name),
                Some(n),
                "attribute {name} of {files:?}"
            );
        }
        eprintln!(
            "{flags:?} {files:?} {objects:?}: exit {}, {} differences, {} datasets and {} attributes reported",
            theirs.status,
            theirs.total,
            theirs.datasets.len(),
            theirs.attributes.len()
        );
        Some(summary)
    }

    #[test]
    fn attributes_of_every_class() {
        // Attributes of groups, datasets and named datatypes, of every datatype class
        // (references, vlen, compounds, enums, arrays, strings) and rank.
        let Some(s) = same(&["-r"], ["h5diff_attr1.h5", "h5diff_attr2.h5"], &[]) else {
            return;
        };
        assert!(s.objects.iter().any(|o| o.attributes.len() > 10));
        same(
            &[],
            ["h5diff_attr_v_level1.h5", "h5diff_attr_v_level2.h5"],
            &[],
        );
    }

    #[test]
    fn groups_recursively() {
        let Some(s) = same(&["-r"], ["h5diff_basic1.h5", "h5diff_basic2.h5"], &[]) else {
            return;
        };
        assert!(s.different_contents);
        same(
            &["-r"],
            ["h5diff_grp_recurse1.h5", "h5diff_grp_recurse2.h5"],
            &[],
        );
        same(
            &["--follow-symlinks"],
            ["h5diff_grp_recurse1.h5", "h5diff_grp_recurse2.h5"],
            &[],
        );
        same(
            &["--exclude-path", "/group1/dset3"],
            ["h5diff_exclude1-1.h5", "h5diff_exclude1-2.h5"],
            &[],
        );
    }

    #[test]
    fn soft_external_and_dangling_links() {
        let Some(_) = same(
            &[],
            ["h5diff_links.h5", "h5diff_links.h5"],
            &["/link_g1", "/link_g2"],
        ) else {
            return;
        };
        let follow = ["--follow-symlinks"];
        same(&follow, ["h5diff_softlinks.h5", "h5diff_softlinks.h5"], &[]);
        same(
            &follow,
            ["h5diff_softlinks.h5", "h5diff_softlinks.h5"],
            &["/softlink_dset1_1", "/target_dset2"],
        );
        same(
            &follow,
            ["h5diff_extlink_src.h5", "h5diff_extlink_src.h5"],
            &[],
        );
        same(
            &follow,
            ["h5diff_extlink_src.h5", "h5diff_extlink_trg.h5"],
            &["/ext_link_dset1", "/target_group2/x_dset"],
        );
        same(
            &follow,
            ["h5diff_linked_softlink.h5", "h5diff_linked_softlink.h5"],
            &["/softlink1_to_slink2", "/softlink2_to_slink2"],
        );
        same(
            &follow,
            ["h5diff_softlinks.h5", "h5diff_softlinks.h5"],
            &["/softlink_noexist", "/softlink_dset2"],
        );
        same(
            &follow,
            ["h5diff_danglelinks1.h5", "h5diff_danglelinks2.h5"],
            &[],
        );
        // Without following, links compare by value; dangling ones refused are errors.
        same(
            &[],
            ["h5diff_danglelinks1.h5", "h5diff_danglelinks2.h5"],
            &[],
        );
        let s = same(
            &["--follow-symlinks", "--no-dangling-links"],
            ["h5diff_danglelinks1.h5", "h5diff_danglelinks2.h5"],
            &[],
        );
        assert_eq!(s.map(|s| s.exit_status()), Some(2));
    }

    #[test]
    fn references_vlen_compounds_and_every_type() {
        // Datasets of every class, object and region references compared by what they
        // point at, variable-length sequences and strings, compounds of arrays of vlen.
        let Some(_) = same(&["-r"], ["h5diff_dset1.h5", "h5diff_dset2.h5"], &[]) else {
            return;
        };
        same(
            &["-r"],
            ["compounds_array_vlen1.h5", "compounds_array_vlen2.h5"],
            &[],
        );
        same(&["-r"], ["tvlstr.h5", "tvlstr2.h5"], &[]);
        same(&["-r"], ["h5diff_strings1.h5", "h5diff_strings2.h5"], &[]);
        same(
            &["-r"],
            ["h5diff_comp_vl_strs.h5", "h5diff_comp_vl_strs.h5"],
            &["/group", "/group_copy"],
        );
        same(
            &["-r"],
            [
                "h5diff_enum_invalid_values.h5",
                "h5diff_enum_invalid_values.h5",
            ],
            &["dset1", "dset2"],
        );
        same(&["-r"], ["h5diff_hyper1.h5", "h5diff_hyper2.h5"], &[]);
    }

    #[test]
    fn not_comparable_objects() {
        let Some(s) = same(&[], ["non_comparables1.h5", "non_comparables2.h5"], &[]) else {
            return;
        };
        assert!(s.not_comparable);
        assert!(s.objects.iter().any(|o| matches!(
            o.outcome,
            Outcome::NotComparable(NotComparable::Classes { .. })
        )));
    }

    #[test]
    fn nans_and_tolerances() {
        let b = ["h5diff_basic1.h5", "h5diff_basic1.h5"];
        // fp15 and fp16 hold NaNs: two NaNs are equal by h5diff's rule, with --nan they
        // differ.
        let Some(_) = same(&["-d", "0.0001"], b, &["g1/fp18", "g1/fp18_COPY"]) else {
            return;
        };
        same(&["--nan"], b, &["g1/fp15", "g1/fp16"]);
        same(&["-d", "0.1"], b, &["g1/fp15", "g1/fp16"]);
        same(&["--use-system-epsilon"], b, &["g1/fp18", "g1/fp18_COPY"]);
        same(&["--use-system-epsilon"], b, &["g1/fp1", "g1/fp2"]);
        same(&["-p", "0.02"], b, &["g1/dset5", "g1/dset6"]);
        same(&["-p", "0.02"], b, &["g1/dset9", "g1/dset10"]);
        same(&[], b, &["g1/fp15", "g1/fp16"]);
        same(
            &["-d", "1"],
            ["h5diff_basic1.h5", "h5diff_basic2.h5"],
            &["g1/dset3", "g1/dset4"],
        );
        same(&["-r"], ["h5diff_eps1.h5", "h5diff_eps2.h5"], &[]);
    }
}
