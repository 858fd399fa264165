//! BZip2 (filter 307, PyTables' and hdf5plugin's filter): the chunk is one bzip2 stream;
//! client data 0 is the block size in units of 100 kB (1 to 9, default 9). The
//! `bzip2` crate with its pure-Rust backend (`libbz2-rs-sys`, a port of libbzip2) writes the
//! same bytes as the plugin's libbzip2.

use bzip2::{Action, Compress, Compression, Decompress, Status};

use super::{bail, ensure, DecodeContext, Filter, FilterCodec, FilterId, Result, Step};

const ID: FilterId = FilterId::BZIP2;

fn decode(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<()> {
    out.clear();
    // The buffer grows as needed up to one byte past the bound (to tell a stream that
    // ends exactly there from a longer one).
    let max = limit.saturating_add(1);
    let mut d = Decompress::new(false);
    let mut buf = vec![0u8; max.min(input.len().saturating_mul(4).max(4096))];
    loop {
        let (in_at, out_at) = (d.total_in() as usize, d.total_out() as usize);
        let src = input.get(in_at..).unwrap_or_default();
        let status = match d.decompress(src, &mut buf[out_at..]) {
            Ok(s) => s,
            Err(e) => bail!(Corrupt, ID, "bzip2: {e}"),
        };
        let progressed = d.total_in() as usize != in_at || d.total_out() as usize != out_at;
        if status == Status::StreamEnd {
            break;
        }
        if d.total_out() as usize == buf.len() {
            ensure!(
                buf.len() < max,
                LimitExceeded,
                ID,
                "decompressed data exceeds {limit} bytes"
            );
            buf.resize(buf.len().saturating_mul(2).min(max), 0);
        } else if !progressed {
            bail!(Corrupt, ID, "bzip2 stream is truncated");
        }
    }
    let n = d.total_out() as usize;
    ensure!(
        n <= limit,
        LimitExceeded,
        ID,
        "decompressed data exceeds {limit} bytes"
    );
    buf.truncate(n);
    *out = buf;
    Ok(())
}

fn encode(cd: &[u32], input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let level = cd.first().copied().unwrap_or(9);
    ensure!(
        (1..=9).contains(&level),
        InvalidParameters,
        ID,
        "bzip2 block size {level} (1 to 9)"
    );
    let mut c = Compress::new(Compression::new(level), 0);
    out.clear();
    out.reserve(input.len() + input.len() / 100 + 600);
    loop {
        let consumed = c.total_in() as usize;
        match c.compress_vec(&input[consumed..], out, Action::Finish) {
            Ok(Status::StreamEnd) => return Ok(()),
            Ok(_) => out.reserve(out.capacity().max(4096)),
            Err(e) => bail!(EncodeFailed, ID, "bzip2: {e}"),
        }
    }
}

/// The BZip2 codec.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bzip2;

impl FilterCodec for Bzip2 {
    fn id(&self) -> FilterId {
        ID
    }
    fn name(&self) -> &str {
        "bzip2"
    }
    fn decode(
        &self,
        _: &Filter,
        input: &[u8],
        out: &mut Vec<u8>,
        ctx: &DecodeContext,
    ) -> Result<Step> {
        decode(input, out, ctx.limit)?;
        Ok(Step::Replaced)
    }
    fn encode(&self, f: &Filter, input: &[u8], out: &mut Vec<u8>) -> Result<Step> {
        encode(&f.client_data, input, out)?;
        Ok(Step::Replaced)
    }
}
