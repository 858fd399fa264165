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
