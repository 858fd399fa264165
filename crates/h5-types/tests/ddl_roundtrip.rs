//! Print then parse is the identity: over every predefined type and thousands of generated
//! nested types; parse errors carry positions; malformed input never panics.

mod support;

use h5_types::predefined;
use h5_types::{Datatype, ErrorKind};
use support::{Gen, Rng, Scope};

fn roundtrip(t: &Datatype) -> String {
    // The lossless form parses back to an equal type; the plain form does wherever the
    // reference's text keeps the layout.
    let text = format!("{t:#}");
    let back: Datatype = text.parse().unwrap_or_else(|e| panic!("{text}\n--> {e}"));
    assert_eq!(&back, t, "{text}");
    assert_eq!(format!("{back:#}"), text);
    text
}

#[test]
fn every_predefined_type() {
    for (name, t) in predefined::all() {
        roundtrip(&t);
        assert_eq!(name.parse::<Datatype>().unwrap(), t, "{name}");
        // Composite types of every predefined base, too.
        let v = Datatype::from(h5_types::VarLenType::new(t.clone()));
        roundtrip(&v);
        let a = Datatype::from(h5_types::ArrayType::new(t.clone(), &[2, 3]).unwrap());
        roundtrip(&a);
        let c = h5_types::CompoundType::from_members(t.size() + 3, [(name, 1, t.clone())]).unwrap();
        roundtrip(&c.into());
    }
}

#[test]
fn generated_types_reference_scope() {
    let mut g = Gen::new(0x5eed_0001, Scope::Reference);
    for _ in 0..3000 {
        roundtrip(&g.ty(0));
    }
}

#[test]
fn generated_types_full_scope() {
    let mut g = Gen::new(0x5eed_0002, Scope::All);
    let mut extended = 0;
    for _ in 0..4000 {
        let t = g.ty(0);
        let text = roundtrip(&t);
        // Whitespace does not matter: squeezed onto one line it reads the same.
        let squeezed = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(squeezed.parse::<Datatype>().unwrap(), t, "{squeezed}");
        if text.contains("SIZE ") || text.contains("H5T_INTEGER {") || text.contains("H5T_FLOAT {")
        {
            extended += 1;
        }
    }
    // The generator does reach the extended forms.
    assert!(extended > 200, "{extended}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for open in [
        "H5T_VLEN {",
        "H5T_ARRAY { [1]",
        "H5T_COMPOUND {",
        "H5T_ENUM {",
        "H5T_COMPLEX {",
    ] {
        let text = open.repeat(200_000);
        let e = text.parse::<Datatype>().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Syntax, "{open}");
        assert!(e.position().is_some());
    }
}

#[test]
fn error_positions_point_at_the_token() {
    let text = "H5T_COMPOUND {\n   H5T_STD_I32LE \"a\" : 0;\n   H5T_NOT_A_TYPE \"b\";\n}";
    let e = text.parse::<Datatype>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_eq!(e.position(), text.find("H5T_NOT_A_TYPE"));
    assert!(e.to_string().contains("H5T_NOT_A_TYPE"), "{e}");
    let text = "H5T_ARRAY { [4][0] H5T_STD_I8LE }";
    let e = text.parse::<Datatype>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(e.position(), text.find('['));
}

/// Cut, splice and corrupt valid texts: the reader returns, never panics, and every error has
/// a position inside the text (or at its end).
#[test]
fn malformed_input_never_panics() {
    let mut g = Gen::new(0x5eed_0003, Scope::All);
    let mut rng = Rng::new(77);
    let junk = [
        "{",
        "}",
        "[",
        "]",
        ";",
        ":",
        "\"",
        "\\",
        "-",
        "0x",
        "H5T_VLEN",
        "SIZE",
        "99999999999999999999999999999999999999999",
        "-170141183460469231731687303715884105729",
        "é",
        "\0",
        "H5T_COMPOUND",
        "OPQ_SIZE",
    ];
    let mut errors = 0;
    for _ in 0..3000 {
        let text = format!("{:#}", g.ty(0));
        let mut bytes = text.into_bytes();
        for _ in 0..rng.range(1, 4) {
            let at = rng.below(bytes.len() + 1);
            match rng.below(3) {
                0 => bytes.truncate(at),
                1 => {
                    let j = rng.pick(&junk).as_bytes();
                    bytes.splice(at..at, j.iter().copied());
                }
                _ => {
                    if at < bytes.len() {
                        bytes.remove(at);
                    }
                }
            }
        }
        let s = String::from_utf8_lossy(&bytes);
        match s.parse::<Datatype>() {
            Ok(t) => {
                // Whatever parses prints and reads back.
                roundtrip(&t);
            }
            Err(e) => {
                errors += 1;
                let p = e.position().expect("parse errors have a position");
                assert!(p <= s.len(), "{p} > {} for {s:?}", s.len());
            }
        }
    }
    assert!(errors > 1000, "{errors}");
}
