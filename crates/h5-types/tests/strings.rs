//! `String` and `&str` as variable-length UTF-8 strings, and `String` reading every string
//! datatype.

use h5_types::convert::{ConversionOptions, Converter, VarLenHeap};
use h5_types::h5type::{decode_slice, encode_slice, FixedAscii, VarLenArray, VarLenUnicode};
use h5_types::{CharSet, Datatype, ErrorKind, H5Type, StrPad, StringType};

#[test]
fn string_is_a_variable_length_utf8_string() {
    let t = String::h5_type();
    assert_eq!(t, VarLenUnicode::h5_type());
    assert_eq!(t.size(), String::IMAGE_SIZE);
    assert_eq!(<&str>::h5_type(), t);
    assert_eq!(<&str>::IMAGE_SIZE, t.size());
    assert_eq!(<[String; 3]>::IMAGE_SIZE, <[String; 3]>::h5_type().size());
    assert_eq!(
        VarLenArray::<String>::IMAGE_SIZE,
        VarLenArray::<String>::h5_type().size()
    );
}

#[test]
fn round_trips() {
    let values = vec![
        "".to_owned(),
        "héllo".to_owned(),
        "a longer string".to_owned(),
    ];
    let (image, heap) = encode_slice(&values).unwrap();
    assert_eq!(image.len(), 3 * String::IMAGE_SIZE);
    assert_eq!(decode_slice::<String>(&image, &heap).unwrap(), values);
    // The image is VarLenUnicode's.
    let same: Vec<VarLenUnicode> = decode_slice(&image, &heap).unwrap();
    assert_eq!(same[1].as_str(), "héllo");
    // &str writes the same image.
    let strs: Vec<&str> = values.iter().map(String::as_str).collect();
    let (image2, heap2) = encode_slice(&strs).unwrap();
    assert_eq!(decode_slice::<String>(&image2, &heap2).unwrap(), values);
    // Arrays and sequences of strings.
    let arrays = [
        ["a".to_owned(), "bc".to_owned()],
        ["".to_owned(), "déf".to_owned()],
    ];
    let (image, heap) = encode_slice(&arrays).unwrap();
    assert_eq!(decode_slice::<[String; 2]>(&image, &heap).unwrap(), arrays);
    let seqs = [VarLenArray::from(vec!["x".to_owned(), "yz".to_owned()])];
    let (image, heap) = encode_slice(&seqs).unwrap();
    assert_eq!(
        decode_slice::<VarLenArray<String>>(&image, &heap).unwrap(),
        seqs
    );
}

#[test]
fn refused_values() {
    let e = encode_slice(&["ok", "a\0b"]).unwrap_err();
    assert_eq!(e.element(), Some(1), "{e}");
    let (image, heap) = encode_slice(&["x"]).unwrap();
    let e = decode_slice::<&str>(&image, &heap).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    // Invalid UTF-8 is an error naming the element, not a replacement.
    let mut heap = VarLenHeap::new();
    let mut image = Vec::new();
    image.extend(heap.string_element(b"fine"));
    image.extend(heap.string_element(b"bad \xff"));
    let e = decode_slice::<String>(&image, &heap).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ConversionException, "{e}");
    assert_eq!(e.element(), Some(1), "{e}");
}

/// Read `input` (`n` elements of `file`) as `String`, as a reader does.
fn read_strings(file: &Datatype, input: &[u8], n: usize, heap: &mut VarLenHeap) -> Vec<String> {
    let target = String::read_type(file);
    assert_eq!(target.size(), String::IMAGE_SIZE);
    let conv = Converter::new(file, &target).unwrap();
    let mut out = vec![0u8; n * target.size()];
    conv.convert(
        input,
        &mut out,
        n,
        &mut ConversionOptions::new().with_heap(heap),
    )
    .unwrap();
    decode_slice(&out, heap).unwrap()
}

#[test]
fn any_string_datatype_reads_as_string() {
    let fixed = |pad, cset| -> Datatype { StringType::fixed(6, pad, cset).into() };
    let input = b"ab\0cd\0\xc3\xa9t\xc3\xa9 hi    ";
    for cset in [CharSet::Ascii, CharSet::Utf8] {
        let mut heap = VarLenHeap::new();
        assert_eq!(
            read_strings(&fixed(StrPad::NullTerm, cset), input, 3, &mut heap),
            ["ab", "été ", "hi    "]
        );
        assert_eq!(
            read_strings(&fixed(StrPad::NullPad, cset), input, 3, &mut heap),
            ["ab", "été ", "hi    "]
        );
        assert_eq!(
            read_strings(&fixed(StrPad::SpacePad, cset), input, 3, &mut heap),
            ["ab", "été", "hi"]
        );
        // Variable length, ASCII or UTF-8.
        let var: Datatype = StringType::variable(StrPad::NullTerm, cset).into();
        let mut heap = VarLenHeap::new();
        let mut image = Vec::new();
        for s in ["one", "", "tw\0o"] {
            image.extend(heap.string_element(s.as_bytes()));
        }
        assert_eq!(read_strings(&var, &image, 3, &mut heap), ["one", "", "tw"]);
    }
    // Other types read as String's own type (and then fail to convert).
    assert_eq!(String::read_type(&i32::h5_type()), String::h5_type());
    assert_eq!(
        FixedAscii::<4>::read_type(&String::h5_type()),
        FixedAscii::<4>::h5_type()
    );
}
