use super::*;

fn space(dims: &[u64]) -> Dataspace {
    Dataspace::simple(dims).expect("valid dims")
}

fn run(offset: u64, rank: u64, len: u64) -> Run {
    Run { offset, rank, len }
}

/// The element offsets in selection order, checking that ranks tile 0..n exactly.
fn expand(runs: impl Iterator<Item = Run>) -> Vec<u64> {
    let mut by_rank: Vec<(u64, u64)> = Vec::new();
    for r in runs {
        assert!(r.len > 0, "empty run {r:?}");
        for i in 0..r.len {
            by_rank.push((r.rank + i, r.offset + i));
        }
    }
    by_rank.sort_unstable();
    for (i, (rank, _)) in by_rank.iter().enumerate() {
        assert_eq!(*rank, i as u64, "ranks do not tile 0..n");
    }
    by_rank.into_iter().map(|(_, o)| o).collect()
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}

type Slab = (Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>);

/// A random valid hyperslab (start, stride, count, block) inside `dims`.
fn random_slab(rng: &mut Rng, dims: &[u64]) -> Slab {
    let mut s = (vec![], vec![], vec![], vec![]);
    for &d in dims {
        let block = rng.range(1, (d / 2).max(1));
        let stride = block + rng.below(3);
        let start = rng.below(d - block + 1);
        let max_count = (d - start - block) / stride + 1;
        let count = rng.range(1, max_count);
        s.0.push(start);
        s.1.push(stride);
        s.2.push(count);
        s.3.push(block);
    }
    s
}

fn slab_mask(dims: &[u64], slab: &Slab) -> Vec<bool> {
    let n: u64 = dims.iter().product();
    let mut mask = vec![false; n as usize];
    for (idx, m) in mask.iter_mut().enumerate() {
        let mut rem = idx as u64;
        let mut inside = true;
        for k in (0..dims.len()).rev() {
            let c = rem % dims[k];
            rem /= dims[k];
            let (start, stride, count, block) = (slab.0[k], slab.1[k], slab.2[k], slab.3[k]);
            if c < start {
                inside = false;
                continue;
            }
            let i = (c - start) / stride;
            if i >= count || (c - start) % stride >= block {
                inside = false;
            }
        }
        *m = inside;
    }
    mask
}

fn random_op(rng: &mut Rng) -> SelectOp {
    [
        SelectOp::Or,
        SelectOp::And,
        SelectOp::Xor,
        SelectOp::NotB,
        SelectOp::NotA,
        SelectOp::Set,
    ][rng.below(6) as usize]
}

fn random_dims(rng: &mut Rng) -> Vec<u64> {
    let rank = rng.range(1, 4) as usize;
    (0..rank).map(|_| rng.range(1, 9)).collect()
}

/// A random hyperslab selection built from 1-4 operations, with the brute-force mask.
fn random_hyperslab(rng: &mut Rng, dims: &[u64]) -> (Selection, Vec<bool>) {
    let sp = space(dims);
    let first = random_slab(rng, dims);
    let mut sel = Selection::hyperslab(&sp, &first.0, Some(&first.1), &first.2, Some(&first.3))
        .expect("valid slab");
    let mut mask = slab_mask(dims, &first);
    for _ in 0..rng.below(4) {
        let op = random_op(rng);
        let s = random_slab(rng, dims);
        sel.select_hyperslab(&sp, op, &s.0, Some(&s.1), &s.2, Some(&s.3))
            .expect("valid op");
        let b = slab_mask(dims, &s);
        for (a, b) in mask.iter_mut().zip(b) {
            *a = op.keep(*a, b);
        }
    }
    (sel, mask)
}

fn mask_elements(mask: &[bool]) -> Vec<u64> {
    mask.iter()
        .enumerate()
        .filter(|(_, &m)| m)
        .map(|(i, _)| i as u64)
        .collect()
}

fn mask_bounds(dims: &[u64], mask: &[bool]) -> Option<(Vec<u64>, Vec<u64>)> {
    let mut lo = vec![u64::MAX; dims.len()];
    let mut hi = vec![0; dims.len()];
    let mut any = false;
    for i in mask_elements(mask) {
        any = true;
        let mut rem = i;
        for k in (0..dims.len()).rev() {
            let c = rem % dims[k];
            rem /= dims[k];
            lo[k] = lo[k].min(c);
            hi[k] = hi[k].max(c);
        }
    }
    any.then_some((lo, hi))
}

#[test]
fn dataspace_checks() {
    assert_eq!(space(&[3, 4]).npoints(), 12);
    assert_eq!(Dataspace::Scalar.npoints(), 1);
    assert_eq!(Dataspace::Null.npoints(), 0);
    let e = Dataspace::simple(&[1; 33]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidExtent);
    assert!(
        e.to_string()
            .contains("rank 33 exceeds the maximum rank 32"),
        "{e}"
    );
    let e = Dataspace::with_max(&[5, 4], &[5, 3]).unwrap_err();
    assert_eq!(
        e.message(),
        "dimension size 4 exceeds maximum size 3 in dim 1"
    );
    let e = Dataspace::simple(&[1 << 40, 1 << 40]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow);
    let e = Dataspace::with_max(&[2], &[2, 3]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RankMismatch);
    let grow = Dataspace::with_max(&[2, 3], &[UNLIMITED, 3]).unwrap();
    assert!(grow.is_unlimited(0) && !grow.is_unlimited(1));
    assert_eq!(grow.resized(&[100, 3]).unwrap().dims(), &[100, 3]);
    assert_eq!(
        grow.resized(&[100, 4]).unwrap_err().kind(),
        ErrorKind::InvalidExtent
    );
    assert!(Dataspace::with_max(&[UNLIMITED], &[UNLIMITED]).is_err());
}

#[test]
fn hyperslab_parameter_errors() {
    let sp = space(&[10, 10]);
    let e = Selection::hyperslab(&sp, &[0, 2], None, &[1, 10], None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfBounds);
    assert_eq!(
        e.message(),
        "hyperslab end 12 exceeds dimension 10 in dim 1"
    );
    let e = Selection::hyperslab(&sp, &[0, 0], Some(&[0, 1]), &[2, 1], None).unwrap_err();
    assert_eq!(e.message(), "hyperslab stride cannot be zero (dim 0)");
    let e = Selection::hyperslab(&sp, &[0, 0], Some(&[1, 2]), &[2, 2], Some(&[1, 3])).unwrap_err();
    assert_eq!(
        e.message(),
        "hyperslab blocks overlap in dim 1: stride 2 < block 3"
    );
    // One block may be wider than its stride.
    assert!(Selection::hyperslab(&sp, &[0, 0], Some(&[1, 1]), &[1, 1], Some(&[1, 3])).is_ok());
    let e = Selection::hyperslab(&sp, &[0], None, &[1], None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RankMismatch);
    let e = Selection::hyperslab(&sp, &[0, u64::MAX], None, &[1, 2], None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow);
    // Count or block 0: nothing, as the reference library does for SET.
    let none = Selection::hyperslab(&sp, &[0, 0], None, &[0, 3], None).unwrap();
    assert_eq!(none, Selection::None);
    // ...and no change for OR.
    let mut s = Selection::hyperslab(&sp, &[1, 1], None, &[2, 2], None).unwrap();
    let before = s.clone();
    s.select_hyperslab(&sp, SelectOp::Or, &[0, 0], None, &[3, 0], None)
        .unwrap();
    assert_eq!(s, before);
    s.select_hyperslab(&sp, SelectOp::And, &[0, 0], None, &[3, 0], None)
        .unwrap();
    assert_eq!(s, Selection::None);
    let e = Selection::hyperslab(&Dataspace::Scalar, &[], None, &[], None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidSelection);
}

#[test]
fn point_errors_and_validation() {
    let sp = space(&[10, 4]);
    let e = Selection::points(&sp, &[[1u64, 2], [3, 4]]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfBounds);
    assert_eq!(
        e.message(),
        "point 1 coordinate 4 exceeds dimension 4 in dim 1"
    );
    let e = Selection::points(&sp, &[vec![1u64, 2, 3]]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RankMismatch);
    let sel = Selection::hyperslab(&sp, &[5, 0], None, &[5, 4], None).unwrap();
    let smaller = space(&[8, 4]);
    assert_eq!(
        sel.validate(&smaller).unwrap_err().message(),
        "hyperslab end 10 exceeds dimension 8 in dim 0"
    );
    assert_eq!(
        sel.validate(&space(&[10])).unwrap_err().kind(),
        ErrorKind::RankMismatch
    );
    let mut pts = Selection::element(&sp, &[2, 3]).unwrap();
    let e = pts
        .select_hyperslab(&sp, SelectOp::Or, &[0, 0], None, &[1, 1], None)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidSelection);
}

#[test]
fn regular_hyperslab_runs_by_hand() {
    // 4 x 6; rows 1 and 3; columns 1,2 and 4,5.
    let sp = space(&[4, 6]);
    let sel = Selection::hyperslab(&sp, &[1, 1], Some(&[2, 3]), &[2, 2], Some(&[1, 2])).unwrap();
    let runs: Vec<Run> = sel.runs(&sp).unwrap().collect();
    assert_eq!(
        runs,
        vec![run(7, 0, 2), run(10, 2, 2), run(19, 4, 2), run(22, 6, 2)]
    );
    assert_eq!(sel.npoints(&sp), 8);
    assert_eq!(sel.bounds(&sp), Some((vec![1, 1], vec![3, 5])));
    // Whole rows merge into one run.
    let rows = Selection::hyperslab(&sp, &[1, 0], None, &[2, 6], None).unwrap();
    assert_eq!(
        rows.runs(&sp).unwrap().collect::<Vec<_>>(),
        vec![run(6, 0, 12)]
    );
    // A column is one run per row.
    let col = Selection::hyperslab(&sp, &[0, 5], None, &[4, 1], None).unwrap();
    assert_eq!(
        col.runs(&sp).unwrap().collect::<Vec<_>>(),
        vec![run(5, 0, 1), run(11, 1, 1), run(17, 2, 1), run(23, 3, 1)]
    );
    // Touching blocks merge: stride == block.
    let touching =
        Selection::hyperslab(&sp, &[0, 0], Some(&[1, 2]), &[1, 3], Some(&[1, 2])).unwrap();
    assert_eq!(
        touching.as_hyperslab().unwrap().regular().unwrap()[1],
        Axis {
            start: 0,
            stride: 6,
            count: 1,
            block: 6
        }
    );
    assert_eq!(
        Selection::All.runs(&sp).unwrap().collect::<Vec<_>>(),
        vec![run(0, 0, 24)]
    );
    assert_eq!(Selection::None.runs(&sp).unwrap().count(), 0);
}

#[test]
fn three_d_runs_merge_fastest_dims() {
    // 3 x 4 x 5: planes 1..3, all rows and columns: one run of 40.
    let sp = space(&[3, 4, 5]);
    let sel = Selection::hyperslab(&sp, &[1, 0, 0], None, &[2, 4, 5], None).unwrap();
    assert_eq!(
        sel.runs(&sp).unwrap().collect::<Vec<_>>(),
        vec![run(20, 0, 40)]
    );
    // rows 1..3 of every plane: runs of 10 per plane.
    let sel = Selection::hyperslab(&sp, &[0, 1, 0], None, &[3, 2, 5], None).unwrap();
    assert_eq!(
        sel.runs(&sp).unwrap().collect::<Vec<_>>(),
        vec![run(5, 0, 10), run(25, 10, 10), run(45, 20, 10)]
    );
}

#[test]
fn scalar_and_null() {
    let sc = Dataspace::Scalar;
    assert_eq!(Selection::All.npoints(&sc), 1);
    assert_eq!(
        Selection::All.runs(&sc).unwrap().collect::<Vec<_>>(),
        vec![run(0, 0, 1)]
    );
    assert_eq!(Selection::All.bounds(&sc), None);
    let null = Dataspace::Null;
    assert_eq!(Selection::All.npoints(&null), 0);
    assert_eq!(Selection::All.runs(&null).unwrap().count(), 0);
    assert!(Selection::element(&sc, &[]).is_err());
}

#[test]
fn points_keep_their_order_and_merge_neighbours() {
    let sp = space(&[4, 5]);
    let sel = Selection::points(&sp, &[[0u64, 1], [0, 2], [3, 3], [0, 0], [0, 0]]).unwrap();
    assert_eq!(sel.npoints(&sp), 5);
    assert_eq!(sel.bounds(&sp), Some((vec![0, 0], vec![3, 3])));
    assert_eq!(
        sel.runs(&sp).unwrap().collect::<Vec<_>>(),
        vec![run(1, 0, 2), run(18, 2, 1), run(0, 3, 1), run(0, 4, 1)]
    );
}

/// An operation with a 1-D (start, count).
type OneDimOp = (SelectOp, (Vec<u64>, Vec<u64>));

#[test]
fn set_operations_by_hand() {
    let sp = space(&[10]);
    let slab = |start: u64, count: u64| (vec![start], vec![count]);
    let build = |ops: &[OneDimOp]| {
        let mut s = Selection::None;
        for (op, (start, count)) in ops {
            s.select_hyperslab(&sp, *op, start, None, count, None)
                .unwrap();
        }
        s
    };
    let elems = |s: &Selection| expand(s.runs(&sp).unwrap());
    let or = build(&[(SelectOp::Set, slab(0, 4)), (SelectOp::Or, slab(6, 2))]);
    assert_eq!(elems(&or), vec![0, 1, 2, 3, 6, 7]);
    assert!(!or.is_regular_hyperslab());
    assert_eq!(or.bounds(&sp), Some((vec![0], vec![7])));
    let and = build(&[(SelectOp::Set, slab(0, 4)), (SelectOp::And, slab(2, 5))]);
    assert_eq!(elems(&and), vec![2, 3]);
    assert!(and.is_regular_hyperslab());
    let xor = build(&[(SelectOp::Set, slab(0, 6)), (SelectOp::Xor, slab(2, 2))]);
    assert_eq!(elems(&xor), vec![0, 1, 4, 5]);
    // Two blocks of two, four apart: regular again.
    assert_eq!(
        xor.as_hyperslab().unwrap().regular().unwrap(),
        &[Axis {
            start: 0,
            stride: 4,
            count: 2,
            block: 2
        }]
    );
    let notb = build(&[(SelectOp::Set, slab(0, 6)), (SelectOp::NotB, slab(3, 7))]);
    assert_eq!(elems(&notb), vec![0, 1, 2]);
    let nota = build(&[(SelectOp::Set, slab(0, 6)), (SelectOp::NotA, slab(3, 7))]);
    assert_eq!(elems(&nota), vec![6, 7, 8, 9]);
    let gone = build(&[(SelectOp::Set, slab(0, 3)), (SelectOp::And, slab(5, 3))]);
    assert_eq!(gone, Selection::None);
    // All combined with a hyperslab.
    let mut all = Selection::All;
    all.select_hyperslab(&sp, SelectOp::NotB, &[1], None, &[8], None)
        .unwrap();
    assert_eq!(elems(&all), vec![0, 9]);
    let c = or.combine(&sp, SelectOp::Xor, &Selection::All).unwrap();
    assert_eq!(elems(&c), vec![4, 5, 8, 9]);
}

#[test]
fn two_d_union_iterates_row_major() {
    // Two overlapping 2x2 squares in 4x4: iteration is row-major over the union.
    let sp = space(&[4, 4]);
    let mut s = Selection::hyperslab(&sp, &[0, 0], None, &[2, 2], None).unwrap();
    s.select_hyperslab(&sp, SelectOp::Or, &[1, 1], None, &[2, 2], None)
        .unwrap();
    assert_eq!(s.npoints(&sp), 7);
    assert_eq!(
        s.runs(&sp).unwrap().collect::<Vec<_>>(),
        vec![run(0, 0, 2), run(4, 2, 3), run(9, 5, 2)]
    );
    assert_eq!(s.bounds(&sp), Some((vec![0, 0], vec![2, 2])));
}

#[test]
fn random_hyperslabs_match_brute_force() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for case in 0..400 {
        let dims = random_dims(&mut rng);
        let sp = space(&dims);
        let (sel, mask) = random_hyperslab(&mut rng, &dims);
        let want = mask_elements(&mask);
        assert_eq!(sel.npoints(&sp), want.len() as u64, "case {case} {dims:?}");
        assert_eq!(sel.bounds(&sp), mask_bounds(&dims, &mask), "case {case}");
        let got = expand(sel.runs(&sp).unwrap());
        assert_eq!(got, want, "case {case} dims {dims:?} sel {sel:?}");
        // Runs are maximal: no two consecutive runs could be merged.
        let runs: Vec<Run> = sel.runs(&sp).unwrap().collect();
        for w in runs.windows(2) {
            assert!(
                !(w[0].offset + w[0].len == w[1].offset && w[0].rank + w[0].len == w[1].rank),
                "case {case}: runs {:?} not merged",
                w
            );
        }
    }
}

/// Check that the chunk pieces of `sel` tile its runs exactly.
fn check_chunks(sel: &Selection, sp: &Dataspace, chunk: &[u64]) {
    let dims = sp.dims();
    let n = sel.npoints(sp) as usize;
    let mut seen: Vec<Option<u64>> = vec![None; n];
    let mut last_coords: Option<Vec<u64>> = None;
    let cstride = extent::row_major_strides(chunk);
    let dstride = extent::row_major_strides(dims);
    for piece in sel.chunks(sp, chunk).unwrap() {
        if let Some(prev) = &last_coords {
            assert!(prev.as_slice() < piece.coords(), "chunks out of order");
        }
        last_coords = Some(piece.coords().to_vec());
        let origin: Vec<u64> = piece
            .coords()
            .iter()
            .zip(chunk)
            .map(|(q, c)| q * c)
            .collect();
        assert_eq!(piece.origin(), origin.as_slice());
        let mut any = false;
        for r in piece.runs() {
            any = true;
            for i in 0..r.len {
                let mut rem = r.offset + i;
                let mut global = 0;
                for k in 0..chunk.len() {
                    let c = rem / cstride[k];
                    rem %= cstride[k];
                    assert!(c < chunk[k]);
                    let x = origin[k] + c;
                    assert!(x < dims[k], "run leaves the dataset");
                    global += x * dstride[k];
                }
                let slot = &mut seen[(r.rank + i) as usize];
                assert!(slot.is_none(), "element {} twice", r.rank + i);
                *slot = Some(global);
            }
        }
        assert!(any, "chunk {:?} touched but empty", piece.coords());
    }
    let whole = expand(sel.runs(sp).unwrap());
    let tiled: Vec<u64> = seen
        .into_iter()
        .map(|s| s.expect("element missing"))
        .collect();
    assert_eq!(tiled, whole);
}

#[test]
fn random_chunk_pieces_tile_the_selection() {
    let mut rng = Rng(0x0c4a_7157_0000_0002);
    for _ in 0..300 {
        let dims = random_dims(&mut rng);
        let sp = space(&dims);
        let chunk: Vec<u64> = dims.iter().map(|&d| rng.range(1, d + 1)).collect();
        let (sel, _) = random_hyperslab(&mut rng, &dims);
        check_chunks(&sel, &sp, &chunk);
        check_chunks(&Selection::All, &sp, &chunk);
        let npts = rng.below(6) as usize + 1;
        let pts: Vec<Vec<u64>> = (0..npts)
            .map(|_| dims.iter().map(|&d| rng.below(d)).collect())
            .collect();
        check_chunks(&Selection::points(&sp, &pts).unwrap(), &sp, &chunk);
    }
}

#[test]
fn chunk_runs_by_hand() {
    // 5 x 5 in 2 x 3 chunks; rows 1..4, columns 2..4.
    let sp = space(&[5, 5]);
    let sel = Selection::hyperslab(&sp, &[1, 2], None, &[3, 2], None).unwrap();
    let pieces: Vec<(Vec<u64>, Vec<Run>)> = sel
        .chunks(&sp, &[2, 3])
        .unwrap()
        .map(|c| (c.coords().to_vec(), c.runs().collect()))
        .collect();
    assert_eq!(
        pieces,
        vec![
            (vec![0, 0], vec![run(5, 0, 1)]),
            (vec![0, 1], vec![run(3, 1, 1)]),
            (vec![1, 0], vec![run(2, 2, 1), run(5, 4, 1)]),
            (vec![1, 1], vec![run(0, 3, 1), run(3, 5, 1)]),
        ]
    );
    // Full-width chunks: a chunk's rows merge.
    let all: Vec<Vec<Run>> = Selection::All
        .chunks(&sp, &[2, 5])
        .unwrap()
        .map(|c| c.runs().collect())
        .collect();
    assert_eq!(
        all,
        vec![
            vec![run(0, 0, 10)],
            vec![run(0, 10, 10)],
            vec![run(0, 20, 5)]
        ]
    );
    assert_eq!(
        sel.chunks(&sp, &[2]).unwrap_err().kind(),
        ErrorKind::RankMismatch
    );
    assert_eq!(
        sel.chunks(&sp, &[2, 0]).unwrap_err().kind(),
        ErrorKind::InvalidExtent
    );
}

#[test]
fn huge_dataset_costs_nothing_per_element() {
    // 2^20 x 2^20 x 2^20 elements (2^60): far more than memory.
    let d = 1u64 << 20;
    let sp = space(&[d, d, d]);
    let all: Vec<Run> = Selection::All.runs(&sp).unwrap().collect();
    assert_eq!(all, vec![run(0, 0, 1 << 60)]);
    // Three whole planes.
    let planes = Selection::hyperslab(&sp, &[7, 0, 0], None, &[3, d, d], None).unwrap();
    assert_eq!(
        planes.runs(&sp).unwrap().collect::<Vec<_>>(),
        vec![run(7 << 40, 0, 3 << 40)]
    );
    // A small box deep inside: one run per row.
    let small = Selection::hyperslab(&sp, &[d - 2, d - 3, 5], None, &[2, 3, 100], None).unwrap();
    let runs: Vec<Run> = small.runs(&sp).unwrap().collect();
    assert_eq!(runs.len(), 6);
    assert_eq!(runs[0].offset, (d - 2) * d * d + (d - 3) * d + 5);
    assert_eq!(runs[5].rank, 500);
    // Chunked: 1024^3 chunks, only those touched are visited.
    let pieces: Vec<Vec<u64>> = small
        .chunks(&sp, &[1024, 1024, 1024])
        .unwrap()
        .map(|c| c.coords().to_vec())
        .collect();
    assert_eq!(pieces, vec![vec![1023, 1023, 0]]);
    // A strided selection over everything: lazily produced, take a few.
    let strided = Selection::hyperslab(
        &sp,
        &[0, 0, 0],
        Some(&[2, 2, 2]),
        &[d / 2, d / 2, d / 2],
        None,
    )
    .unwrap();
    let first: Vec<Run> = strided.runs(&sp).unwrap().take(3).collect();
    assert_eq!(first, vec![run(0, 0, 1), run(2, 1, 1), run(4, 2, 1)]);
}

fn random_memory_selection(rng: &mut Rng, n: u64) -> (Dataspace, Selection) {
    // A memory dataspace whose selection has exactly n elements.
    match rng.below(3) {
        0 => {
            // A block of n rows inside a bigger 2-D buffer.
            let cols = rng.range(1, 4);
            let dims = [n + rng.below(3), cols + rng.below(3)];
            let sp = space(&dims);
            let sel =
                Selection::hyperslab(&sp, &[rng.below(dims[0] - n + 1), 0], None, &[n, 1], None)
                    .unwrap();
            (sp, sel)
        }
        1 => {
            let len = n * 2 + rng.below(3);
            let sp = space(&[len]);
            let pts: Vec<Vec<u64>> = (0..n).map(|_| vec![rng.below(len)]).collect();
            (sp.clone(), Selection::points(&sp, &pts).unwrap())
        }
        _ => {
            // Every other element of a 1-D buffer, or a union with a hole.
            let sp = space(&[2 * n + 2]);
            let mut s = Selection::hyperslab(&sp, &[1], Some(&[2]), &[n], None).unwrap();
            if n >= 2 {
                // Add element 2, drop the last: still n elements, no longer regular.
                s.select_hyperslab(&sp, SelectOp::Xor, &[2], None, &[1], None)
                    .unwrap();
                s.select_hyperslab(&sp, SelectOp::NotB, &[2 * n - 1], None, &[1], None)
                    .unwrap();
            }
            (sp, s)
        }
    }
}

/// The memory offsets of a memory selection, in its order.
fn memory_offsets(sp: &Dataspace, sel: &Selection) -> Vec<u64> {
    expand(sel.runs(sp).unwrap())
}

#[test]
fn transfer_pairs_match_element_by_element() {
    let mut rng = Rng(0x7a45_f3e2_0000_0003);
    for case in 0..300 {
        let dims = random_dims(&mut rng);
        let sp = space(&dims);
        let (sel, _) = random_hyperslab(&mut rng, &dims);
        let n = sel.npoints(&sp);
        if n == 0 {
            continue;
        }
        let file_elems = expand(sel.runs(&sp).unwrap());
        let (msp, msel) = random_memory_selection(&mut rng, n);
        let mem_elems = memory_offsets(&msp, &msel);
        assert_eq!(mem_elems.len() as u64, n);
        let map = MemoryMap::selection(&msp, &msel).unwrap();
        for (i, &m) in mem_elems.iter().enumerate() {
            let (off, contiguous) = map.locate(i as u64);
            assert_eq!(off, m, "case {case}: locate({i})");
            for j in 0..contiguous {
                assert_eq!(mem_elems[i + j as usize], m + j, "case {case}: contiguity");
            }
        }
        // Read: file data = arange, memory gets file_elems[i] at mem_elems[i].
        let file: Vec<u8> = (0..sp.npoints())
            .flat_map(|v| (v as u16).to_le_bytes())
            .collect();
        let mut mem = vec![0u8; 2 * msp.npoints() as usize];
        let pairs: Vec<Pair> = map.transfer(n, sel.runs(&sp).unwrap()).unwrap().collect();
        copy_to_memory(pairs.iter().copied(), &file, &mut mem, 2).unwrap();
        let mut want = vec![0u8; mem.len()];
        for (f, m) in file_elems.iter().zip(&mem_elems) {
            let m = *m as usize * 2;
            want[m..m + 2].copy_from_slice(&(*f as u16).to_le_bytes());
        }
        // Duplicate memory points: the last write wins in both.
        assert_eq!(mem, want, "case {case}");
        // Chunk-wise transfer gives the same memory image.
        let chunk: Vec<u64> = dims.iter().map(|&d| rng.range(1, d)).collect();
        let mut mem2 = vec![0u8; mem.len()];
        let cstride = extent::row_major_strides(&chunk);
        let dstride = extent::row_major_strides(&dims);
        for piece in sel.chunks(&sp, &chunk).unwrap() {
            // Build the chunk's bytes from the dataset.
            let clen: u64 = chunk.iter().product();
            let mut cbuf = vec![0u8; 2 * clen as usize];
            for e in 0..clen {
                let mut rem = e;
                let mut g = 0;
                let mut inside = true;
                for k in 0..chunk.len() {
                    let x = piece.origin()[k] + rem / cstride[k];
                    rem %= cstride[k];
                    inside &= x < dims[k];
                    g += x * dstride[k];
                }
                if inside {
                    let e = e as usize * 2;
                    cbuf[e..e + 2].copy_from_slice(&(g as u16).to_le_bytes());
                }
            }
            let pairs = map.transfer(n, piece.runs()).unwrap();
            copy_to_memory(pairs, &cbuf, &mut mem2, 2).unwrap();
        }
        let dup = {
            let mut m = mem_elems.clone();
            m.sort_unstable();
            m.windows(2).any(|w| w[0] == w[1])
        };
        if !dup {
            assert_eq!(mem2, want, "case {case}: chunked");
        }
        // Write back: memory -> file reproduces the selected file values.
        let mut file2 = vec![0u8; file.len()];
        let pairs = map.transfer(n, sel.runs(&sp).unwrap()).unwrap();
        copy_to_file(pairs, &mem, &mut file2, 2).unwrap();
        if !dup {
            for &f in &file_elems {
                let f = f as usize * 2;
                assert_eq!(file2[f..f + 2], file[f..f + 2], "case {case}: write");
            }
        }
    }
}

#[test]
fn transfer_errors() {
    let sp = space(&[4]);
    let sel = Selection::hyperslab(&sp, &[0], None, &[3], None).unwrap();
    let e = MemoryMap::packed(2)
        .transfer(3, sel.runs(&sp).unwrap())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CountMismatch);
    assert_eq!(
        e.message(),
        "the file selection has 3 elements but memory has 2"
    );
    let map = MemoryMap::packed(3);
    let pairs: Vec<Pair> = map.transfer(3, sel.runs(&sp).unwrap()).unwrap().collect();
    assert_eq!(
        pairs,
        vec![Pair {
            file: 0,
            mem: 0,
            len: 3
        }]
    );
    let mut mem = [0u8; 5];
    let e = copy_to_memory(
        pairs.iter().copied(),
        &[1, 2, 3, 4, 5, 6, 7, 8],
        &mut mem,
        2,
    )
    .unwrap_err();
    assert!(
        e.message()
            .contains("memory buffer of 5 bytes is too short"),
        "{e}"
    );
    let mut file = [0u8; 4];
    let e = copy_to_file(pairs, &[0; 6], &mut file, 2).unwrap_err();
    assert!(e.message().contains("file-side buffer of 4 bytes"), "{e}");
}

#[test]
fn strided_memory_map() {
    // Transpose of a 2 x 3 section into a 3 x 2 buffer: imap = [1, 2].
    let m = MemoryMap::strided(0, &[2, 3], &[1, 2]).unwrap();
    assert_eq!(m.len(), 6);
    assert_eq!(m.extent(), 6);
    let offs: Vec<u64> = (0..6).map(|i| m.locate(i).0).collect();
    assert_eq!(offs, vec![0, 2, 4, 1, 3, 5]);
    // Row-major with padding: rows of 3 in rows of 5 -> contiguous runs of 3.
    let m = MemoryMap::strided(1, &[2, 3], &[5, 1]).unwrap();
    assert_eq!(m.locate(0), (1, 3));
    assert_eq!(m.locate(4), (7, 2));
    assert_eq!(m.extent(), 9);
    // Contiguous layout merges into one run.
    let m = MemoryMap::strided(0, &[2, 3, 4], &[12, 4, 1]).unwrap();
    assert_eq!(m.locate(5), (5, 19));
    assert_eq!(
        MemoryMap::strided(0, &[2], &[1, 1]).unwrap_err().kind(),
        ErrorKind::RankMismatch
    );
    assert_eq!(
        MemoryMap::strided(0, &[3], &[u64::MAX]).unwrap_err().kind(),
        ErrorKind::Overflow
    );
}

#[test]
fn netcdf_forms_by_hand() {
    // temp(time=3, level=4, lat=5, lon=10): level 1 (second), every time, lat and lon.
    let sp = Dataspace::with_max(&[3, 4, 5, 10], &[UNLIMITED, 4, 5, 10]).unwrap();
    let acc = nc_access(
        &sp,
        NcForm::Section {
            start: &[0, 1, 0, 0],
            count: &[3, 1, 5, 10],
        },
        NcMode::Read,
    )
    .unwrap();
    assert_eq!(acc.file.npoints(&acc.extent), 150);
    let runs: Vec<Run> = acc.file.runs(&acc.extent).unwrap().collect();
    assert_eq!(
        runs,
        vec![run(50, 0, 50), run(250, 50, 50), run(450, 100, 50)]
    );
    assert_eq!(acc.memory.len(), 150);

    // Whole and single element.
    let whole = nc_access(&sp, NcForm::Whole, NcMode::Read).unwrap();
    assert_eq!(whole.file, Selection::All);
    assert_eq!(whole.memory.len(), 600);
    let one = nc_access(
        &sp,
        NcForm::Element {
            index: &[2, 3, 4, 9],
        },
        NcMode::Read,
    )
    .unwrap();
    assert_eq!(
        one.file.runs(&sp).unwrap().collect::<Vec<_>>(),
        vec![run(599, 0, 1)]
    );

    // Subsampled: every 4th lon, every other lat.
    let sub = nc_access(
        &sp,
        NcForm::Subsampled {
            start: &[0, 0, 0, 1],
            count: &[1, 1, 3, 3],
            stride: &[1, 1, 2, 4],
        },
        NcMode::Read,
    )
    .unwrap();
    assert_eq!(
        expand(sub.file.runs(&sp).unwrap()),
        vec![1, 5, 9, 21, 25, 29, 41, 45, 49]
    );

    // Mapped: the same section, transposed in memory (lon slowest): imap = [.., 1, 3].
    let mapped = nc_access(
        &sp,
        NcForm::Mapped {
            start: &[0, 0, 0, 1],
            count: &[1, 1, 3, 3],
            stride: Some(&[1, 1, 2, 4]),
            imap: Some(&[9, 9, 1, 3]),
        },
        NcMode::Read,
    )
    .unwrap();
    assert_eq!(mapped.memory.extent(), 9);
    let pairs: Vec<Pair> = mapped
        .memory
        .transfer(9, mapped.file.runs(&sp).unwrap())
        .unwrap()
        .collect();
    let mut image = [0u64; 9];
    for p in &pairs {
        for i in 0..p.len {
            image[(p.mem + i) as usize] = p.file + i;
        }
    }
    // memory[lon_i * 3 + lat_i] = element (lat 2*lat_i, lon 1 + 4*lon_i).
    assert_eq!(image, [1, 21, 41, 5, 25, 45, 9, 29, 49]);
}

#[test]
fn netcdf_errors() {
    let sp = Dataspace::with_max(&[3, 10], &[UNLIMITED, 10]).unwrap();
    let read = |form| nc_access(&sp, form, NcMode::Read).map(|_| ());
    let e = read(NcForm::Section {
        start: &[0, 11],
        count: &[1, 0],
    })
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidCoords);
    assert_eq!(e.message(), "start 11 is beyond dimension 1 of length 10");
    // start == length with a zero count is allowed; with a count it is not.
    read(NcForm::Section {
        start: &[0, 10],
        count: &[1, 0],
    })
    .unwrap();
    assert_eq!(
        read(NcForm::Section {
            start: &[0, 10],
            count: &[1, 1]
        })
        .unwrap_err()
        .kind(),
        ErrorKind::InvalidCoords
    );
    let e = read(NcForm::Section {
        start: &[0, 5],
        count: &[1, 6],
    })
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Edge);
    assert!(e
        .to_string()
        .starts_with("start+count exceeds dimension bound (NC_EEDGE)"));
    let e = read(NcForm::Subsampled {
        start: &[0, 1],
        count: &[1, 4],
        stride: &[1, 3],
    })
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Edge);
    assert_eq!(
        e.message(),
        "start 1 + count 4 (stride 3) reaches index 10, beyond dimension 1 of length 10"
    );
    let e = read(NcForm::Subsampled {
        start: &[0, 0],
        count: &[1, 1],
        stride: &[0, 1],
    })
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Stride);
    let e = read(NcForm::Element { index: &[3, 0] }).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidCoords);
    assert_eq!(e.message(), "index 3 is beyond dimension 0 of length 3");
    let e = read(NcForm::Section {
        start: &[0],
        count: &[1],
    })
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RankMismatch);
    // Reading past the records is an error; writing there grows the unlimited dimension.
    let e = read(NcForm::Section {
        start: &[2, 0],
        count: &[3, 10],
    })
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Edge);
    let w = nc_access(
        &sp,
        NcForm::Section {
            start: &[2, 0],
            count: &[3, 10],
        },
        NcMode::Write,
    )
    .unwrap();
    assert_eq!(w.extent.dims(), &[5, 10]);
    assert_eq!(
        w.file.runs(&w.extent).unwrap().collect::<Vec<_>>(),
        vec![run(20, 0, 30)]
    );
    // The fixed dimension still bounds a write.
    assert_eq!(
        nc_access(
            &sp,
            NcForm::Section {
                start: &[0, 5],
                count: &[1, 6]
            },
            NcMode::Write
        )
        .unwrap_err()
        .kind(),
        ErrorKind::Edge
    );
    // Zero count: nothing selected.
    let z = nc_access(
        &sp,
        NcForm::Section {
            start: &[1, 1],
            count: &[0, 3],
        },
        NcMode::Read,
    )
    .unwrap();
    assert_eq!(z.file, Selection::None);
    assert_eq!(z.memory.len(), 0);
    // Scalar variable.
    let s = nc_access(
        &Dataspace::Scalar,
        NcForm::Element { index: &[] },
        NcMode::Read,
    )
    .unwrap();
    assert_eq!(s.memory.len(), 1);
    assert!(nc_access(&Dataspace::Null, NcForm::Whole, NcMode::Read).is_err());
}

#[test]
fn random_netcdf_mapped_matches_brute_force() {
    let mut rng = Rng(0x00ec_dfa1_0000_0004);
    for case in 0..200 {
        let dims = random_dims(&mut rng);
        let sp = space(&dims);
        let rank = dims.len();
        let mut start = vec![];
        let mut count = vec![];
        let mut stride = vec![];
        for &d in &dims {
            let st = rng.range(1, 3);
            let s = rng.below(d);
            let max = (d - 1 - s) / st + 1;
            start.push(s);
            stride.push(st);
            count.push(rng.range(1, max));
        }
        // A random permutation of a packed layout, with optional padding.
        let mut order: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut imap = vec![0u64; rank];
        let mut acc = 1 + rng.below(2);
        for &k in order.iter().rev() {
            imap[k] = acc;
            acc *= count[k] + rng.below(2);
        }
        let acc = nc_access(
            &sp,
            NcForm::Mapped {
                start: &start,
                count: &count,
                stride: Some(&stride),
                imap: Some(&imap),
            },
            NcMode::Read,
        )
        .unwrap();
        let dstride = extent::row_major_strides(&dims);
        let mut want: Vec<(u64, u64)> = Vec::new();
        let total: u64 = count.iter().product();
        for e in 0..total {
            let mut rem = e;
            let mut file = 0;
            let mut mem = 0;
            for k in (0..rank).rev() {
                let i = rem % count[k];
                rem /= count[k];
                file += (start[k] + i * stride[k]) * dstride[k];
                mem += i * imap[k];
            }
            want.push((file, mem));
        }
        let mut got: Vec<(u64, u64)> = Vec::new();
        for p in acc
            .memory
            .transfer(total, acc.file.runs(&sp).unwrap())
            .unwrap()
        {
            for i in 0..p.len {
                got.push((p.file + i, p.mem + i));
            }
        }
        assert_eq!(got, want, "case {case}");
        let max_mem = want.iter().map(|w| w.1).max().unwrap_or(0);
        assert_eq!(acc.memory.extent(), max_mem + 1, "case {case}");
    }
}

#[test]
fn point_append_and_prepend() {
    let sp = space(&[4, 4]);
    let mut s = Selection::None;
    s.select_elements(&sp, PointOp::Append, &[[1u64, 1]])
        .unwrap();
    s.select_elements(&sp, PointOp::Append, &[[2u64, 2]])
        .unwrap();
    s.select_elements(&sp, PointOp::Prepend, &[[0u64, 3]])
        .unwrap();
    assert_eq!(
        s.runs(&sp).unwrap().collect::<Vec<_>>(),
        vec![run(3, 0, 1), run(5, 1, 1), run(10, 2, 1)]
    );
    s.select_elements(&sp, PointOp::Set, &[[3u64, 3]]).unwrap();
    assert_eq!(s.npoints(&sp), 1);
    let e = s
        .select_elements(&sp, PointOp::Append, &[[4u64, 0]])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfBounds);
    let mut h = Selection::All;
    let e = h
        .select_elements(&sp, PointOp::Append, &[[0u64, 0]])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidSelection);
}

#[test]
fn set_operations_share_rows_and_respect_limits() {
    // Even rows XOR even columns of 4096 x 4096: each row kind is computed once and shared.
    let sp = space(&[4096, 4096]);
    let mut s =
        Selection::hyperslab(&sp, &[0, 0], Some(&[2, 1]), &[2048, 1], Some(&[1, 4096])).unwrap();
    s.select_hyperslab(
        &sp,
        SelectOp::Xor,
        &[0, 0],
        Some(&[1, 2]),
        &[1, 2048],
        Some(&[4096, 1]),
    )
    .unwrap();
    // Even rows keep odd columns, odd rows keep even columns: half of everything.
    assert_eq!(s.npoints(&sp), 4096 * 2048);
    let first: Vec<Run> = s.runs(&sp).unwrap().take(2).collect();
    assert_eq!(first, vec![run(1, 0, 1), run(3, 1, 1)]);
    assert_eq!(s.bounds(&sp), Some((vec![0, 0], vec![4095, 4095])));
    // A regular pattern too fine to expand into spans is refused, not allocated.
    let big = space(&[1 << 40]);
    let mut s = Selection::hyperslab(&big, &[0], Some(&[2]), &[1 << 39], None).unwrap();
    let e = s
        .select_hyperslab(&big, SelectOp::Or, &[1], None, &[1], None)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    // ...while SET and reading it stay cheap.
    let s = Selection::hyperslab(&big, &[0], Some(&[2]), &[1 << 39], None).unwrap();
    assert_eq!(s.npoints(&big), 1 << 39);
    assert_eq!(s.runs(&big).unwrap().nth(5), Some(run(10, 5, 1)));
}

#[test]
fn hand_built_dataspaces_are_checked() {
    let bad = Dataspace::Simple {
        dims: vec![1 << 40, 1 << 40],
        maxdims: vec![UNLIMITED, UNLIMITED],
    };
    assert_eq!(bad.npoints(), u64::MAX);
    assert_eq!(
        Selection::All.runs(&bad).unwrap_err().kind(),
        ErrorKind::Overflow
    );
    let bad = Dataspace::Simple {
        dims: vec![5],
        maxdims: vec![3],
    };
    assert_eq!(
        Selection::All.chunks(&bad, &[2]).unwrap_err().kind(),
        ErrorKind::InvalidExtent
    );
}
