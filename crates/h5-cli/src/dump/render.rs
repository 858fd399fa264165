//! h5dump's output engine: the format settings, the print context, line prefixes and the
//! element renderer that wraps lines (the behaviour of the reference tools library's
//! `h5tools_render_element`, `h5tools_simple_prefix` and `h5tools_str_prefix`).

/// The separator that marks an optional line break inside a rendered element.
pub const OPTIONAL_LINE_BREAK: char = '\u{1}';

/// Output format settings (the fields of the reference tools' format structure that the DDL
/// printer uses).
#[derive(Clone, Debug)]
pub struct Format {
    /// Print every value as raw bytes, the way h5ls 1.10.8's `-x` does (see
    /// [`super::value::Values::sprint`]).
    pub raw: bool,
    /// printf format for native `float` values.
    pub fmt_float: String,
    /// printf format for native `double` values.
    pub fmt_double: String,
    /// Print 1-byte integers as characters.
    pub ascii: bool,
    /// Collapse runs of more than this many equal characters in strings (0 = never).
    pub str_repeat: usize,
    /// Array element opening text.
    pub arr_pre: &'static str,
    /// Array element separator (`None`: `,` and an optional line break, with no space).
    pub arr_sep: Option<&'static str>,
    /// Array element closing text.
    pub arr_suf: &'static str,
    /// Break lines in arrays and compounds.
    pub arr_linebreak: bool,
    /// Compound member separator.
    pub cmpd_sep: &'static str,
    /// Compound opening text.
    pub cmpd_pre: &'static str,
    /// Compound closing text.
    pub cmpd_suf: &'static str,
    /// Text before the first member and before the closing brace.
    pub cmpd_end: &'static str,
    /// Print each compound member's name and `=` before its value (h5ls `-l`).
    pub cmpd_name: bool,
    /// Vlen separator.
    pub vlen_sep: &'static str,
    /// Vlen opening text.
    pub vlen_pre: &'static str,
    /// Vlen closing text.
    pub vlen_suf: &'static str,
    /// Element suffix after all but the last element.
    pub elmt_suf1: &'static str,
    /// Separator between elements on one line.
    pub elmt_suf2: &'static str,
    /// Index number format (`%s` replaced by the number), `None` to print no index numbers.
    pub idx_n: bool,
    /// Index separator.
    pub idx_sep: &'static str,
    /// Index format; `%s` is replaced by the index list.
    pub idx_fmt: &'static str,
    /// The line prefix format is `%s` (print the index prefix on every line) rather than empty.
    pub line_pre: bool,
    /// Line width.
    pub line_ncols: usize,
    /// Elements per line (0 = no limit).
    pub line_per_line: u64,
    /// Text after each line.
    pub line_suf: &'static str,
    /// Start elements that would span lines on a new line.
    pub line_multi_new: bool,
    /// One indentation level.
    pub line_indent: &'static str,
    /// Print array indices (`(0,0): `).
    pub pindex: bool,
    /// Escape special characters in strings.
    pub do_escape: bool,
    /// Print an object reference's file number with its address (`DATASET-1:800`, h5ls;
    /// h5dump hides it: `DATASET 800`).
    pub obj_fileno: bool,
    /// Print a string's characters the way `ESCAPE_HTML` does (h5ls `-S`): every byte that is
    /// not printable ASCII other than space as `%` and two hex digits, of the byte as a signed
    /// `char` (`%00`, `%20`, `%ffffffc3`).
    pub html_escape: bool,
}

impl Default for Format {
    fn default() -> Self {
        Format {
            raw: false,
            fmt_float: "%g".into(),
            fmt_double: "%g".into(),
            ascii: false,
            str_repeat: 0,
            arr_pre: "[ ",
            arr_sep: Some(","),
            arr_suf: " ]",
            arr_linebreak: true,
            cmpd_sep: ",\n",
            cmpd_pre: "{",
            cmpd_suf: "}",
            cmpd_end: "\n",
            cmpd_name: false,
            vlen_sep: ", ",
            vlen_pre: "(",
            vlen_suf: ")",
            elmt_suf1: ",",
            elmt_suf2: " ",
            idx_n: false,
            idx_sep: "",
            idx_fmt: "",
            line_pre: false,
            line_ncols: 80,
            line_per_line: 0,
            line_suf: "",
            line_multi_new: true,
            line_indent: "   ",
            pindex: true,
            do_escape: true,
            html_escape: false,
            obj_fileno: false,
        }
    }
}

impl Format {
    /// The data format (`h5tools_dump_data`): array indices printed as `(i,j): ` if
    /// `display_index`.
    pub fn with_indices(&self, display_index: bool) -> Format {
        let mut f = self.clone();
        f.pindex = display_index;
        if display_index {
            f.idx_fmt = "(%s): ";
            f.idx_n = true;
            f.idx_sep = ",";
            f.line_pre = true;
        }
        f
    }
}

/// The print context (position on the line, indentation, element position).
#[derive(Clone, Debug, Default)]
pub struct Ctx {
    /// Indentation level.
    pub indent_level: i32,
    /// Indentation used when `indent_level` is not positive.
    pub default_indent_level: i32,
    /// Current output column.
    pub cur_column: usize,
    /// A prefix must be printed before the next element.
    pub need_prefix: bool,
    /// Rank of the data being printed.
    pub ndims: usize,
    /// Size of the last dimension.
    pub size_last_dim: u64,
    /// Elements printed on the current line.
    pub cur_elmt: u64,
    /// The previous element spanned lines.
    pub prev_multiline: bool,
    /// Length of the previous prefix.
    pub prev_prefix_len: usize,
    /// Number of strip-mine passes done.
    pub continuation: u64,
    /// Position of the first element of the current strip-mine pass.
    pub sm_pos: u64,
    /// Accumulated dimension sizes for index computation.
    pub acc: Vec<u64>,
    /// Current index position.
    pub pos: Vec<u64>,
    /// Print array indices.
    pub display_index: bool,
    /// Print 1-byte integers as a string (`-r`).
    pub display_char: bool,
}

impl Ctx {
    /// A context at the given indentation (h5dump's `dump_indent`, in columns).
    pub fn at(dump_indent: usize) -> Ctx {
        Ctx {
            indent_level: (dump_indent / 3) as i32,
            cur_column: dump_indent,
            ..Ctx::default()
        }
    }

    /// Set up index computation for these dimensions (`init_acc_pos`).
    pub fn init_acc_pos(&mut self, dims: &[u64]) {
        self.ndims = dims.len();
        self.acc = vec![1; dims.len()];
        self.pos = vec![0; dims.len()];
        for i in (1..dims.len()).rev() {
            self.acc[i - 1] = self.acc[i].saturating_mul(dims[i]);
        }
    }

    fn indent_levels(&self) -> usize {
        if self.indent_level > 0 {
            self.indent_level as usize
        } else {
            self.default_indent_level.max(0) as usize
        }
    }
}

/// Replace the first `%s` of a format with `s` (formats with no `%` replace the text wholly).
pub fn fmt_s(fmt: &str, s: &str) -> String {
    if fmt == "%s" {
        return s.to_string();
    }
    match fmt.find("%s") {
        Some(i) => format!("{}{}{}", &fmt[..i], s, &fmt[i + 2..]),
        None => fmt.to_string(),
    }
}

/// Columns a string occupies: bytes that are printable (control characters and bytes with the
/// high bit set do not count, as in the reference's signed-char comparison).
pub fn count_ncols(s: &str) -> usize {
    s.bytes().filter(|&b| (b' '..0x80).contains(&b)).count()
}

/// Where a stream goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Dest {
    /// Standard output.
    #[default]
    Stdout,
    /// A named output file.
    File(String),
    /// Nowhere (`-o`/`-O` without a file name).
    Null,
}

/// Where standard output goes as it is rendered: a writer shared by the printers of one run,
/// so that a dump holds at most [`Sink::CHUNK`] bytes of its text, whatever the data's size.
#[derive(Clone)]
pub struct Sink(pub std::rc::Rc<std::cell::RefCell<dyn std::io::Write>>);

impl Sink {
    /// Bytes of text gathered before they are written out.
    pub const CHUNK: usize = 64 * 1024;

    /// Write `s` out. When the reader has gone (a closed pipe, as with `h5 dump f | head`)
    /// the process ends the way a C tool killed by `SIGPIPE` does, with status 141, rather
    /// than render the rest of the data for nobody; other write errors drop the text.
    pub fn write(&self, s: &str) {
        if let Err(e) = self.0.borrow_mut().write_all(s.as_bytes()) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(141);
            }
        }
    }
}

/// Where output files (`-o`, `-O`) go as they are rendered: each opened on its first write
/// and written through a buffer, so a dump to a file holds no more of its text in memory
/// than one to standard output. Write errors are kept for the end of the run.
#[derive(Clone, Default)]
pub struct FileSink(pub std::rc::Rc<std::cell::RefCell<FileWriters>>);

/// The open output files of a [`FileSink`].
#[derive(Default)]
pub struct FileWriters {
    open: Vec<(String, Option<std::io::BufWriter<std::fs::File>>)>,
    /// What failed, one message each.
    pub errors: Vec<String>,
}

impl FileSink {
    /// Append `bytes` to output file `name` (created, or truncated, on its first write).
    pub fn write(&self, name: &str, bytes: &[u8]) {
        use std::io::Write as _;
        let mut w = self.0.borrow_mut();
        let i = match w.open.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                let f = match std::fs::File::create(name) {
                    Ok(f) => Some(std::io::BufWriter::new(f)),
                    Err(e) => {
                        w.errors.push(format!("cannot write {name}: {e}"));
                        None
                    }
                };
                w.open.push((name.to_string(), f));
                w.open.len() - 1
            }
        };
        let failed = match &mut w.open[i].1 {
            Some(f) => f.write_all(bytes).err(),
            None => None,
        };
        if let Some(e) = failed {
            // Nothing more goes to a file that failed.
            w.open[i].1 = None;
            w.errors.push(format!("cannot write {name}: {e}"));
        }
    }

    /// Flush every file; the messages of what failed.
    pub fn finish(&self) -> Vec<String> {
        use std::io::Write as _;
        let mut w = self.0.borrow_mut();
        let mut errors = std::mem::take(&mut w.errors);
        for (name, f) in &mut w.open {
            if let Some(f) = f {
                if let Err(e) = f.flush() {
                    errors.push(format!("cannot write {name}: {e}"));
                }
            }
        }
        errors
    }
}

impl std::fmt::Debug for FileSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FileSink")
    }
}

impl Sink {
    /// Write out what the writer holds.
    pub fn flush(&self) {
        let _ = self.0.borrow_mut().flush();
    }
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sink")
    }
}

/// The output streams with h5dump's rendering state: standard output, output files, and the
/// destination text is currently sent to.
#[derive(Debug, Default)]
pub struct Out {
    /// What was printed to standard output and not yet written to [`Out::sink`] (everything,
    /// without a sink).
    pub text: String,
    /// Where standard output is streamed to, if anywhere.
    pub sink: Option<Sink>,
    /// Output files and their contents, in creation order (those not streamed to
    /// [`Out::file_sink`]).
    pub files: Vec<(String, Vec<u8>)>,
    /// Where output files are streamed to, if anywhere.
    pub file_sink: Option<FileSink>,
    /// A progress bar over the datasets (`-o FILE` on a terminal): hidden while standard
    /// output is written.
    pub progress: Option<std::rc::Rc<crate::progress::Progress>>,
    /// Where [`Out::put`] currently writes.
    pub dest: Dest,
}

impl Out {
    /// Append literal text to the current destination.
    pub fn put(&mut self, s: &str) {
        match &self.dest {
            Dest::Stdout => {
                self.text.push_str(s);
                if self.text.len() >= Sink::CHUNK {
                    self.flush();
                }
            }
            Dest::Null => {}
            Dest::File(name) => {
                let name = name.clone();
                self.put_file(&name, s.as_bytes());
            }
        }
    }

    /// Append `bytes` to output file `name`: streamed to the file sink if there is one,
    /// gathered in [`Out::files`] otherwise.
    pub fn put_file(&mut self, name: &str, bytes: &[u8]) {
        match &self.file_sink {
            Some(f) => f.write(name, bytes),
            None => self.file_mut(name).extend_from_slice(bytes),
        }
    }

    /// Take in the output files another printer gathered.
    pub fn absorb_files(&mut self, files: Vec<(String, Vec<u8>)>) {
        for (name, data) in files {
            self.put_file(&name, &data);
        }
    }

    /// Write the text gathered so far to the sink, if there is one.
    pub fn flush(&mut self) {
        if let Some(sink) = &self.sink {
            match &self.progress {
                Some(p) => p.suspend(|| {
                    sink.write(&self.text);
                    sink.flush();
                }),
                None => sink.write(&self.text),
            }
            self.text.clear();
        }
    }

    /// The contents of output file `name` (created empty if new).
    pub fn file_mut(&mut self, name: &str) -> &mut Vec<u8> {
        let i = match self.files.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.files.push((name.to_string(), Vec::new()));
                self.files.len() - 1
            }
        };
        &mut self.files[i].1
    }

    /// Indentation text for `h5tools_str_indent`.
    pub fn indent_str(info: &Format, ctx: &Ctx) -> String {
        info.line_indent.repeat(ctx.indent_levels())
    }

    /// The index prefix text for element `elmtno` (`h5tools_str_prefix`).
    pub fn prefix_text(info: &Format, ctx: &mut Ctx, elmtno: u64) -> String {
        let mut s = String::new();
        if info.idx_n {
            if ctx.ndims > 0 {
                let mut curr = elmtno;
                for i in 0..ctx.ndims {
                    let acc = ctx.acc.get(i).copied().unwrap_or(1).max(1);
                    let p = curr / acc;
                    curr -= acc * p;
                    if let Some(slot) = ctx.pos.get_mut(i) {
                        *slot = p;
                    }
                    if i > 0 {
                        s.push_str(info.idx_sep);
                    }
                    s.push_str(&p.to_string());
                }
            } else {
                s.push_str(&elmtno.to_string());
            }
        }
        fmt_s(info.idx_fmt, &s)
    }

    /// Start a new line with prefix and indentation if `ctx.need_prefix` (`h5tools_simple_prefix`).
    pub fn simple_prefix(&mut self, info: &Format, ctx: &mut Ctx, elmtno: u64, secnum: usize) {
        let prefix = Self::prefix_text(info, ctx, elmtno);
        let shown = if (elmtno == 0 && secnum == 0) || secnum > 0 || info.line_pre {
            prefix
        } else {
            String::new()
        };
        self.prefix_with(info, ctx, &shown);
    }

    /// Like [`Out::simple_prefix`] with a prefix text computed by the caller.
    pub fn prefix_with(&mut self, info: &Format, ctx: &mut Ctx, prefix: &str) {
        if !ctx.need_prefix {
            return;
        }
        if ctx.cur_column > 0 {
            self.put(info.line_suf);
            self.put("\n");
        }
        let levels = ctx.indent_levels();
        let mut templength;
        if info.pindex {
            for _ in 0..levels.saturating_sub(1) {
                self.put(info.line_indent);
            }
            self.put(prefix);
            templength = prefix.len();
            let str_len = if levels >= 2 {
                info.line_indent.len()
            } else {
                0
            };
            templength += str_len * levels;
        } else {
            self.put(prefix);
            templength = prefix.len();
            for _ in 0..levels {
                self.put(info.line_indent);
                templength += info.line_indent.len();
            }
        }
        ctx.cur_column = templength;
        ctx.prev_prefix_len = templength;
        ctx.cur_elmt = 0;
        ctx.need_prefix = false;
    }

    /// Print one rendered element, wrapping lines as the reference does
    /// (`h5tools_render_element`). Returns false when a dimension ended.
    pub fn render_element(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        s: &str,
        ncols: usize,
        local_elmt_counter: u64,
        elmt_counter: u64,
    ) -> bool {
        self.render_inner(info, ctx, s, ncols, local_elmt_counter, elmt_counter, false)
    }

    /// `h5tools_render_region_element`: like [`Out::render_element`], but the first section of
    /// the first element never wraps and prefixes carry no index (region data).
    pub fn render_region_element(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        s: &str,
        ncols: usize,
        local_elmt_counter: u64,
        elmt_counter: u64,
    ) -> bool {
        self.render_inner(info, ctx, s, ncols, local_elmt_counter, elmt_counter, true)
    }

    #[allow(clippy::too_many_arguments)]
    fn render_inner(
        &mut self,
        info: &Format,
        ctx: &mut Ctx,
        s: &str,
        ncols: usize,
        local_elmt_counter: u64,
        elmt_counter: u64,
        region: bool,
    ) -> bool {
        let mut dimension_break = true;
        let suf2 = info.elmt_suf2.len();
        let lsuf = info.line_suf.len();
        let ncols_s = count_ncols(s);
        if info.line_multi_new
            && ctx.cur_column + ncols_s + suf2 + lsuf > ncols
            && (ctx.prev_multiline || ctx.prev_prefix_len + ncols_s + suf2 + lsuf <= ncols)
        {
            ctx.need_prefix = true;
        }
        if info.arr_linebreak && ctx.cur_elmt > 0 {
            if ctx.size_last_dim > 0 && ctx.cur_elmt.is_multiple_of(ctx.size_last_dim) {
                ctx.need_prefix = true;
            }
            if elmt_counter == ctx.size_last_dim {
                ctx.need_prefix = true;
                dimension_break = false;
            }
        }
        if info.line_multi_new
            && ctx.prev_multiline
            && ctx.cur_column + ncols_s + suf2 + lsuf > ncols
        {
            ctx.need_prefix = true;
        }
        if info.line_per_line > 0 && ctx.cur_elmt >= info.line_per_line {
            ctx.need_prefix = true;
        }
        let mut multiline = 0;
        for (secnum, section) in s
            .split(OPTIONAL_LINE_BREAK)
            .filter(|p| !p.is_empty())
            .enumerate()
        {
            if (!region || local_elmt_counter > 0)
                && ctx.cur_column + section.len() + suf2 + lsuf > ncols
            {
                ctx.need_prefix = true;
            }
            if ctx.need_prefix {
                if secnum > 0 {
                    multiline += 1;
                }
                if region {
                    self.prefix_with(info, ctx, "");
                } else {
                    let pos = ctx.sm_pos + local_elmt_counter;
                    self.simple_prefix(info, ctx, pos, secnum);
                }
            } else if (local_elmt_counter > 0 || ctx.continuation > 0) && secnum == 0 {
                self.put(info.elmt_suf2);
                ctx.cur_column += suf2;
            }
            self.put(section);
            ctx.cur_column += section.len();
        }
        ctx.prev_multiline = multiline > 0;
        dimension_break
    }

    /// Render a header line: new line, indentation, then `s` (`need_prefix` + render with the
    /// header format).
    pub fn line(&mut self, info: &Format, ctx: &mut Ctx, s: &str) {
        ctx.need_prefix = true;
        let ncols = info.line_ncols;
        self.render_element(info, ctx, s, ncols, 0, 0);
    }
}

/// The bytes of the type conversion buffer h5dump reads a dataset through.
const STRIP_BUFFER: u64 = 32 * 1024 * 1024;

/// One strip of a dataset read: the hyperslab (`offset`, `count`), its element count, the
/// index of its first element and whether it is the last strip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strip {
    /// The hyperslab's start.
    pub offset: Vec<u64>,
    /// The hyperslab's extent.
    pub count: Vec<u64>,
    /// Elements in the strip.
    pub n: u64,
    /// Index of the strip's first element in the dataset.
    pub elmtno: u64,
    /// Whether this is the last strip.
    pub end: bool,
}

/// How h5dump strip-mines a dataset (`h5tools_dump_simple_dset`): hyperslabs that fill its
/// 32 MiB buffer from the fastest dimension outwards, in row-major order. A scalar dataset
/// is one strip of one element; a dataset with no elements has none.
#[derive(Clone, Debug)]
pub struct StripMine {
    dims: Vec<u64>,
    sm_size: Vec<u64>,
    offset: Vec<u64>,
    elmtno: u64,
    total: u64,
}

impl StripMine {
    /// The strips of a dataset of shape `dims` whose elements take `elem_size` bytes in
    /// memory.
    pub fn new(dims: &[u64], elem_size: u64) -> StripMine {
        let mut sm_size = vec![0u64; dims.len()];
        let mut sm_nbytes = elem_size.max(1);
        for i in (0..dims.len()).rev() {
            sm_size[i] = dims[i].min((STRIP_BUFFER / sm_nbytes).max(1));
            sm_nbytes = sm_nbytes.saturating_mul(sm_size[i].max(1));
        }
        let total = if dims.is_empty() {
            1
        } else {
            dims.iter().product()
        };
        StripMine {
            dims: dims.to_vec(),
            sm_size,
            offset: vec![0; dims.len()],
            elmtno: 0,
            total,
        }
    }
}

impl Iterator for StripMine {
    type Item = Strip;

    fn next(&mut self) -> Option<Strip> {
        if self.elmtno >= self.total {
            return None;
        }
        let count: Vec<u64> = (0..self.dims.len())
            .map(|i| (self.dims[i] - self.offset[i]).min(self.sm_size[i]))
            .collect();
        let n: u64 = count.iter().product();
        let strip = Strip {
            offset: self.offset.clone(),
            count,
            n,
            elmtno: self.elmtno,
            end: self.elmtno + n >= self.total,
        };
        let mut i = self.dims.len();
        while i > 0 {
            self.offset[i - 1] += strip.count[i - 1];
            if self.offset[i - 1] == self.dims[i - 1] {
                self.offset[i - 1] = 0;
                i -= 1;
            } else {
                break;
            }
        }
        self.elmtno += n.max(1);
        Some(strip)
    }
}

#[cfg(test)]
mod strip_tests {
    use super::StripMine;

    #[test]
    fn strips_cover_the_dataset_in_row_major_order() {
        // 8-byte elements: 2^22 of them fill the 32 MiB buffer, so each row of a
        // (3, 5 * 2^21) dataset goes in three strips: 2^22, 2^22 and 2^21 elements.
        let dims = [3u64, 5 << 21];
        let strips: Vec<_> = StripMine::new(&dims, 8).collect();
        assert_eq!(strips.len(), 9);
        assert_eq!(strips[0].count, vec![1, 1 << 22]);
        assert_eq!(strips[1].offset, vec![0, 1 << 22]);
        assert_eq!(strips[2].offset, vec![0, 1 << 23]);
        assert_eq!(strips[2].count, vec![1, 1 << 21]);
        assert_eq!(strips[3].offset, vec![1, 0]);
        let total: u64 = strips.iter().map(|s| s.n).sum();
        assert_eq!(total, 3 * (5 << 21));
        assert!(strips.iter().take(8).all(|s| !s.end) && strips[8].end);
        let mut at = 0;
        for s in &strips {
            assert_eq!(s.elmtno, at);
            at += s.n;
        }
        // Small datasets are one strip; a scalar is one strip of one element; an empty one
        // has none.
        assert_eq!(StripMine::new(&[4, 6], 4).count(), 1);
        let scalar: Vec<_> = StripMine::new(&[], 4).collect();
        assert_eq!((scalar.len(), scalar[0].n, scalar[0].end), (1, 1, true));
        assert_eq!(StripMine::new(&[0, 6], 4).count(), 0);
    }
}
