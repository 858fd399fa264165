//! Link and attribute creation-order tracking (h5py's `track_order=True`) and dense storage of
//! any size (fractal heaps with nested indirect blocks, huge objects), judged by h5py, h5dump
//! and our own reader, in both formats.

mod write_support;

use std::path::{Path, PathBuf};

use h5::write::{CreationOrder, GroupOptions};
use h5::FileFormat;
use write_support::{dump, py, FORMATS};

fn tmp(name: &str, format: FileFormat) -> PathBuf {
    write_support::tmp_in("order", name, format)
}

/// Run a Python snippet (no file opened for it); its stdout, or `None` without h5py.
fn py_script(body: &str, args: &[&str]) -> Option<String> {
    let exe = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let script = format!("import sys, h5py, numpy as np\n{body}\n");
    let mut all = vec!["-c", script.as_str()];
    all.extend_from_slice(args);
    let out = h5_oracle::run(&exe, &all, b"").unwrap_or_else(|e| panic!("python failed: {e}"));
    Some(String::from_utf8(out).unwrap())
}

/// Names in an order that is neither name order nor its reverse.
fn scrambled(prefix: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("{prefix}{:03}", (i * 7 + 3) % n))
        .collect()
}

/// The h5dump output without the first line (which names the file).
fn body(dump: &str) -> String {
    dump.lines().skip(1).collect::<Vec<_>>().join("\n")
}

/// Write with our writer what `h5py_twin` writes with h5py: a root group, a group `g`, a
/// dataset `d`, all with `track_order=True`, `links` links in `g` and `attrs` attributes on
/// each of the three.
fn write_ours(path: &Path, format: FileFormat, links: usize, attrs: usize) {
    let f = h5::File::create_with(path, format).unwrap();
    f.set_link_order(CreationOrder::Indexed).unwrap();
    f.set_attr_order(CreationOrder::Indexed).unwrap();
    let g = f
        .create_group_with("g", GroupOptions::track_order())
        .unwrap();
    for n in scrambled("n", links) {
        g.create_group(&n).unwrap();
    }
    let d = f
        .new_dataset::<i64>()
        .shape(&[3])
        .attr_order(CreationOrder::Indexed)
        .create("d")
        .unwrap();
    d.write(&[0, 1, 2]).unwrap();
    for (i, n) in scrambled("a", attrs).iter().enumerate() {
        for obj in [
            f.new_attr::<i64>(),
            g.new_attr::<i64>(),
            d.new_attr::<i64>(),
        ] {
            obj.create(n).unwrap().write(&[i as i64]).unwrap();
        }
    }
    f.close().unwrap();
}

/// The same file made by h5py (`libver` "earliest" for the compatible format, "latest"
/// otherwise); `None` without h5py.
fn h5py_twin(path: &Path, format: FileFormat, links: usize, attrs: usize) -> Option<()> {
    let libver = match format {
        FileFormat::Compatible => "earliest",
        _ => "latest",
    };
    let script = "path, libver, links, attrs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])\n\
        sc = lambda p, n: ['%s%03d' % (p, (i * 7 + 3) % n) for i in range(n)]\n\
        f = h5py.File(path, 'w', libver=libver, track_order=True)\n\
        g = f.create_group('g', track_order=True)\n\
        for n in sc('n', links): g.create_group(n)\n\
        d = f.create_dataset('d', data=np.arange(3, dtype='<i8'), track_order=True)\n\
        for i, n in enumerate(sc('a', attrs)):\n    \
            for o in (f, g, d): o.attrs.create(n, np.int64(i))\n\
        f.close()";
    py_script(
        script,
        &[
            path.to_str().unwrap(),
            libver,
            &links.to_string(),
            &attrs.to_string(),
        ],
    )
    .map(|_| ())
}

#[test]
fn creation_order_matches_h5py_track_order() {
    // Compact (3 links, 4 attributes) and dense (20 links, 12 attributes) storage.
    for format in FORMATS {
        for (links, attrs) in [(3, 4), (20, 12)] {
            let name = format!("order-{links}-{attrs}");
            let ours = tmp(&name, format);
            write_ours(&ours, format, links, attrs);

            // Our reader: creation order everywhere.
            let r = h5::File::open(&ours).unwrap();
            let g = r.group("/g").unwrap();
            let got: Vec<String> = g
                .links_by_creation_order()
                .unwrap()
                .into_iter()
                .map(|l| l.name)
                .collect();
            assert_eq!(got, scrambled("n", links), "{format:?}");
            let d = r.dataset("/d").unwrap();
            let got: Vec<String> = d
                .attrs_by_creation_order()
                .unwrap()
                .iter()
                .map(|a| a.name().to_owned())
                .collect();
            assert_eq!(got, scrambled("a", attrs), "{format:?}");
            let gi = g.inner().unwrap();
            let obj = gi.object();
            assert_eq!(
                h5::io::write::GroupOptions::of_source(obj),
                GroupOptions::track_order()
            );
            drop(r);

            // h5py iterates in creation order.
            let script = "print(list(f['g'].keys()))\nprint(list(f['g'].attrs))\n\
                          print(list(f['d'].attrs))\nprint(list(f.attrs))\nprint(list(f.keys()))";
            if let Some(out) = py(&ours, script) {
                let n = scrambled("n", links);
                let a = scrambled("a", attrs);
                let expect =
                    format!("{n:?}\n{a:?}\n{a:?}\n{a:?}\n{:?}", ["g", "d"]).replace('"', "'");
                assert_eq!(out.trim(), expect, "{format:?} {links} {attrs}");
            }

            // h5dump by creation order: the same as h5py's own file.
            let theirs = tmp(&format!("{name}-h5py"), format);
            if h5py_twin(&theirs, format, links, attrs).is_none() {
                continue;
            }
            let args = ["-q", "creation_order"];
            let (Some(a), Some(b)) = (dump(&ours, &args), dump(&theirs, &args)) else {
                continue;
            };
            assert_eq!(body(&a), body(&b), "{format:?} {links} {attrs}");
            // And both by name.
            let (Some(a), Some(b)) = (dump(&ours, &[]), dump(&theirs, &[])) else {
                continue;
            };
            assert_eq!(body(&a), body(&b), "{format:?} {links} {attrs}");
        }
    }
}

#[test]
fn creation_order_needs_an_empty_group_and_explicit_indexes_are_kept() {
    let p = tmp("explicit", FileFormat::Latest);
    let f = h5::File::create_with(&p, FileFormat::Latest).unwrap();
    let g = f.create_group("g").unwrap();
    g.create_group("x").unwrap();
    assert!(g.set_link_order(CreationOrder::Tracked).is_err());
    g.new_attr::<u8>().create("a").unwrap();
    assert!(g.set_attr_order(CreationOrder::Tracked).is_err());
    f.close().unwrap();
    // Explicit creation indexes (what a copy sets) decide the order.
    let p = tmp("explicit2", FileFormat::Compatible);
    let mut w = h5::io::write::FileWriter::create(&p, FileFormat::Compatible).unwrap();
    let root = w.root();
    let opts = GroupOptions {
        link_order: CreationOrder::Tracked,
        attr_order: CreationOrder::Tracked,
    };
    let g = w.create_group_with(root, "g", &opts).unwrap();
    for n in ["a", "b", "c"] {
        w.create_group(g, n).unwrap();
    }
    w.set_link_creation_index(g, "a", 10).unwrap();
    w.set_link_creation_index(g, "c", 0).unwrap();
    w.create_group(g, "d").unwrap();
    assert_eq!(
        w.link_names_by_creation_order(g).unwrap(),
        ["c", "b", "a", "d"]
    );
    let t = <u8 as h5::H5Type>::h5_type();
    let space = h5::io::selection::Dataspace::Scalar;
    for n in ["x", "y"] {
        w.create_attribute(g, n, &t, None, space.clone()).unwrap();
    }
    w.set_attribute_creation_index(g, "x", 5).unwrap();
    // Tracking switched off again before the first link: a symbol table group.
    let back = w.create_group_with(root, "back", &opts).unwrap();
    w.set_link_order(back, CreationOrder::Untracked).unwrap();
    w.create_group(back, "x").unwrap();
    assert_eq!(w.attribute_names_by_creation_order(g).unwrap(), ["y", "x"]);
    w.close().unwrap();
    let r = h5::File::open(&p).unwrap();
    let back = r.group("/back").unwrap();
    assert_eq!(back.storage().unwrap(), h5::read::LinkStorage::SymbolTable);
    assert_eq!(back.links().unwrap()[0].name, "x");
    let g = r.group("/g").unwrap();
    let links: Vec<(String, Option<u64>)> = g
        .links_by_creation_order()
        .unwrap()
        .into_iter()
        .map(|l| (l.name, l.creation_order))
        .collect();
    assert_eq!(
        links,
        [
            ("c".to_owned(), Some(0)),
            ("b".to_owned(), Some(1)),
            ("a".to_owned(), Some(10)),
            ("d".to_owned(), Some(11))
        ]
    );
    let attrs: Vec<(String, Option<u64>)> = g
        .attrs_by_creation_order()
        .unwrap()
        .iter()
        .map(|a| (a.name().to_owned(), a.creation_order()))
        .collect();
    assert_eq!(
        attrs,
        [("y".to_owned(), Some(1)), ("x".to_owned(), Some(5))]
    );
    if let Some(out) = py(&p, "print(list(f['g'].keys()), list(f['g'].attrs))") {
        assert_eq!(out.trim(), "['c', 'b', 'a', 'd'] ['y', 'x']");
    }
    if let Some(out) = py(&p, "print(list(f['back']))") {
        assert_eq!(out.trim(), "['x']");
    }
}

/// Run a Python snippet with `f` = the file opened by h5py for writing.
fn py_rw(path: &Path, body: &str) -> Option<String> {
    py_script(
        &format!("f = h5py.File(sys.argv[1], 'r+')\n{body}\nf.close()"),
        &[path.to_str().unwrap()],
    )
}

fn long_name(i: usize) -> String {
    format!("link {i:05} {}", "x".repeat(180))
}

/// A file with a group `big` of `links` soft links with long names plus a huge link and a
/// group (links and attributes tracked and indexed), and datasets `d` (attribute order
/// tracked and indexed) and `plain` (not tracked) with `attrs` attributes of 100 bytes; `d`
/// also has two attributes over 4 KiB (huge heap objects). Everything is created in reverse
/// name order.
fn write_dense(p: &Path, format: FileFormat, links: usize, attrs: usize) {
    let f = h5::File::create_with(p, format).unwrap();
    let g = f
        .create_group_with("big", GroupOptions::track_order())
        .unwrap();
    for i in (0..links).rev() {
        g.link_soft(&format!("/t/{i}"), &long_name(i)).unwrap();
        if i == links / 2 {
            g.link_soft(&huge_target(), "huge link").unwrap();
            g.create_group("a group").unwrap();
        }
    }
    let d = f
        .new_dataset::<u8>()
        .shape(&[1])
        .attr_order(CreationOrder::Indexed)
        .create("d")
        .unwrap();
    let plain = f.new_dataset::<u8>().shape(&[1]).create("plain").unwrap();
    for i in 0..attrs {
        let v: Vec<u8> = (0..100).map(|k| ((i + k) % 251) as u8).collect();
        for obj in [&d, &plain] {
            obj.new_attr::<u8>()
                .shape(&[100])
                .create(&format!("attr {:05}", attrs - 1 - i))
                .unwrap()
                .write(&v)
                .unwrap();
        }
        if i == 7 {
            d.new_attr::<f64>()
                .shape(&[25_000])
                .create("huge")
                .unwrap()
                .write(&big_attr())
                .unwrap();
            d.new_attr::<u64>()
                .shape(&[600])
                .create("over 4 KiB")
                .unwrap()
                .write(&(0..600).collect::<Vec<u64>>())
                .unwrap();
        }
    }
    f.close().unwrap();
}

fn huge_target() -> String {
    format!("/far/{}", "t".repeat(5000))
}

fn big_attr() -> Vec<f64> {
    (0..25_000).map(|i| f64::from(i) * 0.5).collect()
}

/// The first bytes of attribute `attr NNNNN` of `write_dense(.., attrs)`.
fn attr_start(attrs: usize, n: usize) -> Vec<u8> {
    let i = attrs - 1 - n;
    (0..3).map(|k| ((i + k) % 251) as u8).collect()
}

#[test]
fn dense_storage_of_any_size() {
    // 30,000 links with long names (6 MB of link messages) and 20,000 attributes of 100
    // bytes: fractal heaps with indirect blocks inside the root indirect block; links and
    // attributes bigger than 4 KiB are huge heap objects. In the compatible format the
    // 20,000 attributes of `plain` live in version 1 header continuation chunks.
    const LINKS: usize = 30_000;
    const ATTRS: usize = 20_000;
    for format in FORMATS {
        let p = tmp("huge", format);
        write_dense(&p, format, LINKS, ATTRS);
        // h5py (creation order, lookups by name through the name indexes).
        let script = format!(
            "g = f['big']\nk = list(g.keys())\n\
             print(len(k), k[0][:10], k[{half} - 1][:10], k[{half}], k[{half} + 1], k[-1][:10])\n\
             print(g.get('huge link', getlink=True).path == '{huge}', \
             g.get('{name}', getlink=True).path)\n\
             a = f['d'].attrs\nn = list(a)\n\
             print(len(n), n[0], n[8], n[9], n[-1], a['huge'].sum(), a['over 4 KiB'][599], a['attr 12345'][:3].tolist())\n\
             print(len(f['plain'].attrs), f['plain'].attrs['attr 00001'][:3].tolist())",
            half = LINKS / 2,
            huge = huge_target(),
            name = long_name(777)
        );
        if let Some(out) = py(&p, &script) {
            assert_eq!(
                out.trim(),
                format!(
                    "30002 link 29999 link 15000 huge link a group link 00000\n\
                     True /t/777\n\
                     20002 attr 19999 huge over 4 KiB attr 00000 156243750.0 599 {:?}\n\
                     20000 {:?}",
                    attr_start(ATTRS, 12345),
                    attr_start(ATTRS, 1)
                ),
                "{format:?}"
            );
        }
        // h5dump finds attributes by name in the dense name index.
        if let Some(out) = dump(&p, &["-a", "/d/attr 12345", "-a", "/d/huge"]) {
            write_support::assert_contains(
                &out,
                &[
                    "(0): 124, 125, 126, 127, 128,",
                    "(24995): 12497.5, 12498, 12498.5, 12499, 12499.5",
                ],
            );
        }
        // The reference library adds to our heaps and B-trees.
        if py_rw(
            &p,
            "f['big'].create_group('one more')\nf['d'].attrs['one more'] = 1",
        )
        .is_some()
        {
            let out = py(
                &p,
                "print(len(f['big']), list(f['big'])[-1], len(f['d'].attrs), list(f['d'].attrs)[-1])",
            )
            .unwrap();
            assert_eq!(out.trim(), "30003 one more 20003 one more", "{format:?}");
        }
    }
}

#[test]
fn dense_storage_with_nested_heap_blocks_reads_back() {
    // Big enough for indirect blocks inside the root indirect block (over 512 KiB of link
    // messages, over 512 KiB of attribute messages), small enough for our reader to list
    // everything quickly.
    const LINKS: usize = 3_000;
    const ATTRS: usize = 4_000;
    for format in FORMATS {
        let p = tmp("nested", format);
        write_dense(&p, format, LINKS, ATTRS);
        let r = h5::File::open(&p).unwrap();
        let rg = r.group("/big").unwrap();
        let links = rg.links_by_creation_order().unwrap();
        assert_eq!(links.len(), LINKS + 2);
        assert_eq!(links[0].name, long_name(LINKS - 1));
        assert_eq!(links[LINKS / 2 - 1].name, long_name(LINKS / 2));
        assert_eq!(links[LINKS / 2].name, "huge link");
        assert_eq!(links[LINKS / 2 + 1].name, "a group");
        assert_eq!(links[LINKS + 1].name, long_name(0));
        match &links[LINKS / 2].target {
            h5::read::LinkTarget::Soft(t) => assert_eq!(t, &huge_target()),
            t => panic!("{t:?}"),
        }
        let rd = r.dataset("/d").unwrap();
        let attrs = rd.attrs_by_creation_order().unwrap();
        assert_eq!(attrs.len(), ATTRS + 2);
        assert_eq!(attrs[0].name(), format!("attr {:05}", ATTRS - 1));
        assert_eq!(attrs[8].name(), "huge");
        assert_eq!(attrs[9].name(), "over 4 KiB");
        let v: Vec<f64> = attrs[8].read().unwrap();
        assert_eq!(v, big_attr());
        let v: Vec<u64> = attrs[9].read().unwrap();
        assert_eq!(v[599], 599);
        let v: Vec<u8> = attrs[ATTRS + 1].read().unwrap();
        assert_eq!(attrs[ATTRS + 1].name(), "attr 00000");
        assert_eq!(v[..3], attr_start(ATTRS, 0)[..]);
        let plain = r.dataset("/plain").unwrap().attrs().unwrap();
        assert_eq!(plain.len(), ATTRS);
        let v: Vec<u8> = plain[1].read().unwrap();
        assert_eq!(plain[1].name(), "attr 00001");
        assert_eq!(v[..3], attr_start(ATTRS, 1)[..]);
        if let Some(out) = py(
            &p,
            "print(len(f['big']), list(f['big'])[0][:10], len(f['d'].attrs), list(f['d'].attrs)[8])",
        ) {
            assert_eq!(out.trim(), "3002 link 02999 4002 huge", "{format:?}");
        }
    }
}

#[test]
fn compatible_format_refuses_an_attribute_over_64_kib_unless_order_is_tracked() {
    let p = tmp("limit", FileFormat::Compatible);
    let f = h5::File::create_with(&p, FileFormat::Compatible).unwrap();
    let e = f
        .new_attr::<u8>()
        .shape(&[70_000])
        .create("too big")
        .unwrap_err();
    assert!(
        e.to_string().contains("64 KiB") && e.to_string().contains("version 1"),
        "{e}"
    );
    // A version 2 header (creation order tracked) takes it, in dense storage.
    let d = f
        .new_dataset::<u8>()
        .shape(&[1])
        .attr_order(CreationOrder::Tracked)
        .create("d")
        .unwrap();
    d.new_attr::<u8>()
        .shape(&[70_000])
        .create("big")
        .unwrap()
        .write(&vec![7u8; 70_000])
        .unwrap();
    f.close().unwrap();
    if let Some(out) = py(&p, "a = f['d'].attrs['big']\nprint(a.shape, a.sum())") {
        assert_eq!(out.trim(), "(70000,) 490000");
    }
}

#[test]
fn version_1_header_with_more_messages_than_its_count_holds() {
    // 66,000 attributes in one version 1 header (the compatible format): the prefix's 16-bit
    // message count saturates; a count of zero would make the reference library refuse the
    // header ("bad object header chunk size").
    let p = tmp("many_v1_messages", FileFormat::Compatible);
    let f = h5::File::create_with(&p, FileFormat::Compatible).unwrap();
    let g = f.create_group("g").unwrap();
    const N: usize = 66_000;
    for i in 0..N {
        g.new_attr::<u8>()
            .create(&format!("a{i}"))
            .unwrap()
            .write(&[(i % 251) as u8])
            .unwrap();
    }
    f.close().unwrap();
    let r = h5::File::open(&p).unwrap();
    assert_eq!(r.group("g").unwrap().attrs().unwrap().len(), N);
    if let Some(out) = py(
        &p,
        "a = f['g'].attrs\nprint(len(a), int(a['a65999']), int(a['a300']))",
    ) {
        assert_eq!(out.trim(), format!("{N} {} {}", 65_999 % 251, 300 % 251));
    }
    if let Some(d) = dump(&p, &["-a", "/g/a65999"]) {
        assert!(d.contains(&format!("(0): {}", 65_999 % 251)), "{d}");
    }
}

#[test]
fn link_order_alone_keeps_a_version_1_header_in_the_compatible_format() {
    // Links tracked, attributes not: a link-message group (dense beyond eight links) in a
    // version 1 header, as the reference library writes it.
    for (n, name) in [(5, "compact"), (12, "dense")] {
        let p = tmp(&format!("links-only-{name}"), FileFormat::Compatible);
        let f = h5::File::create(&p).unwrap();
        let g = f
            .create_group_with(
                "g",
                GroupOptions {
                    link_order: CreationOrder::Indexed,
                    attr_order: CreationOrder::Untracked,
                },
            )
            .unwrap();
        for l in scrambled("n", n) {
            g.create_group(&l).unwrap();
        }
        g.new_attr::<u8>().create("a").unwrap();
        f.close().unwrap();
        let r = h5::File::open(&p).unwrap();
        let rg = r.group("/g").unwrap();
        assert_eq!(rg.inner().unwrap().object().header.version(), 1);
        let names: Vec<String> = rg
            .links_by_creation_order()
            .unwrap()
            .into_iter()
            .map(|l| l.name)
            .collect();
        assert_eq!(names, scrambled("n", n));
        let opts = h5::io::write::GroupOptions::of_source(rg.inner().unwrap().object());
        assert_eq!(opts.link_order, CreationOrder::Indexed);
        assert_eq!(opts.attr_order, CreationOrder::Untracked);
        if let Some(out) = py(&p, "print(list(f['g'].keys()), list(f['g'].attrs))") {
            let expect = format!("{:?} ['a']", scrambled("n", n)).replace('"', "'");
            assert_eq!(out.trim(), expect);
        }
        if let Some(out) = dump(&p, &["-q", "creation_order", "-g", "/g"]) {
            let order: Vec<&str> = out
                .lines()
                .filter_map(|l| l.trim().strip_prefix("GROUP \"n"))
                .collect();
            let expect: Vec<String> = scrambled("", n)
                .into_iter()
                .map(|s| format!("{s}\" {{"))
                .collect();
            assert_eq!(order, expect, "{out}");
        }
    }
}

/// The fractal heap header of the dense links of group `path`.
fn link_heap(p: &Path, path: &str) -> h5::format::heap::fractal::FractalHeapHeader {
    use h5::format::message::{Message, MessageType};
    let r = h5::File::open(p).unwrap();
    let g = r.group(path).unwrap();
    let gi = g.inner().unwrap();
    let Ok(Some(Message::LinkInfo(li))) = gi.object().message(MessageType::LINK_INFO) else {
        panic!("no link info in {path}");
    };
    let h = r
        .inner()
        .unwrap()
        .fractal_heap(li.fractal_heap_address)
        .unwrap();
    (*h).clone()
}

/// The fractal heap header of the dense attributes of group `path`.
fn attr_heap(p: &Path, path: &str) -> h5::format::heap::fractal::FractalHeapHeader {
    use h5::format::message::{Message, MessageType};
    let r = h5::File::open(p).unwrap();
    let g = r.group(path).unwrap();
    let gi = g.inner().unwrap();
    let Ok(Some(Message::AttributeInfo(ai))) = gi.object().message(MessageType::ATTRIBUTE_INFO)
    else {
        panic!("no attribute info in {path}");
    };
    let h = r
        .inner()
        .unwrap()
        .fractal_heap(ai.fractal_heap_address)
        .unwrap();
    (*h).clone()
}

#[test]
fn fractal_heap_layout_equals_the_reference_library() {
    // The same links and attributes (made with a dataspace without maximum dimensions, as
    // the reference library's H5Screate_simple(.., NULL) makes it; h5py's `attrs.create`
    // stores them) inserted by h5py and by us: the heaps' statistics (managed space,
    // allocated space, iterator, free space, rows of the root) are the reference library's,
    // for uniform long names (nested indirect blocks) and for a mix where big links skip
    // small blocks.
    for (name, n, long_every) in [("uniform", 3000, 0), ("mixed", 500, 7)] {
        let ours = tmp(&format!("heap-{name}"), FileFormat::Latest);
        let theirs = tmp(&format!("heap-{name}-h5py"), FileFormat::Latest);
        let link_name = |i: usize| {
            let len = if long_every > 0 && i.is_multiple_of(long_every) {
                2000
            } else if long_every > 0 {
                50
            } else {
                180
            };
            format!("l{i:04}{}", "y".repeat(len))
        };
        let f = h5::File::create_with(&ours, FileFormat::Latest).unwrap();
        let g = f.create_group("g").unwrap();
        for i in 0..n {
            g.link_soft(&format!("/t/{i}"), &link_name(i)).unwrap();
            let v: Vec<u8> = (0..100).map(|k| (i + k) as u8).collect();
            g.new_attr::<u8>()
                .shape(&[100])
                .create(&format!("attribute {i}"))
                .unwrap()
                .write(&v)
                .unwrap();
        }
        f.close().unwrap();
        let script = format!(
            "f = h5py.File(sys.argv[1], 'w', libver='latest')\ng = f.create_group('g')\n\
             for i in range({n}):\n    \
                 ln = 2000 if {long_every} and i % {long_every} == 0 else (50 if {long_every} else 180)\n    \
                 g['l%04d' % i + 'y' * ln] = h5py.SoftLink('/t/%d' % i)\n    \
                 a = h5py.h5a.create(g.id, b'attribute %d' % i, h5py.h5t.STD_U8LE, h5py.h5s.create_simple((100,)))\n    \
                 a.write(((np.arange(100) + i) % 256).astype('u1'))\n\
             f.close()"
        );
        if py_script(&script, &[theirs.to_str().unwrap()]).is_none() {
            continue;
        }
        let a = link_heap(&ours, "/g");
        let b = link_heap(&theirs, "/g");
        let aa = attr_heap(&ours, "/g");
        let ab = attr_heap(&theirs, "/g");
        let strip = |h: &h5::format::heap::fractal::FractalHeapHeader| {
            let mut h = h.clone();
            h.root_block = h5::format::Addr::UNDEF;
            h.free_space_manager = h5::format::Addr::UNDEF;
            h
        };
        assert_eq!(strip(&a), strip(&b), "{name}");
        assert_eq!(strip(&aa), strip(&ab), "{name}");
        assert!(a.current_root_rows > 0);
    }
}
