//! Coming from h5py or hdf5-metno (the `hdf5` crate): the same calls here.
//!
//! | h5py | hdf5-metno | h5 |
//! |---|---|---|
//! | `h5py.File(p, "r")` | `File::open(p)` | [`File::open`](crate::File::open) |
//! | `h5py.File(p, "r+")` | `File::open_rw(p)` | [`File::open_rw`](crate::File::open_rw) |
//! | `h5py.File(p, "w")` | `File::create(p)` | [`File::create`](crate::File::create) |
//! | `h5py.File(p, "w-")` | `File::create_excl(p)` | [`File::create_new`](crate::File::create_new) |
//! | `h5py.File(p, "a")` | `File::append(p)` | [`File::append`](crate::File::append) |
//! | `h5py.File(p, libver="latest")` | `FileBuilder::with_fapl(..)` | [`File::create_with(p, FileFormat::Latest)`](crate::File::create_with) |
//! | `f.close()` | `f.close()` | [`File::close`](crate::File::close) (reports flush errors) |
//! | `f.flush()` | `f.flush()` | [`File::flush`](crate::File::flush) |
//! | `f["g/d"]` | `f.dataset("g/d")` / `f.group("g")` | [`Group::dataset`](crate::Group::dataset), [`Group::group`](crate::Group::group), [`Group::node`](crate::Group::node) |
//! | `"g/d" in f` | `f.link_exists("g/d")` | [`Group::exists`](crate::Group::exists) |
//! | `list(g)` / `g.keys()` | `g.member_names()` | [`Group::member_names`](crate::Group::member_names) |
//! | `g.visititems(f)` | — | [`File::walk`](crate::File::walk) |
//! | `g.create_group("a/b")` | `g.create_group("a/b")` | [`Group::create_group`](crate::Group::create_group) |
//! | `g.create_group(n, track_order=True)` | `GroupBuilder::track_order` | [`Group::create_group_with`](crate::Group::create_group_with) + [`GroupOptions::track_order`](crate::GroupOptions::track_order) |
//! | `g["s"] = h5py.SoftLink("/x")` | `g.link_soft("/x", "s")` | [`Group::link_soft`](crate::Group::link_soft) |
//! | `g["e"] = h5py.ExternalLink("o.h5", "/x")` | `g.link_external(..)` | [`Group::link_external`](crate::Group::link_external) |
//! | `g["h"] = g["x"]` | `g.link_hard("x", "h")` | [`Group::link_hard`](crate::Group::link_hard) |
//! | `g.create_dataset("x", shape=(3, 4), dtype="f4")` | `g.new_dataset::<f32>().shape((3, 4)).create("x")` | [`g.new_dataset::<f32>().shape(&[3, 4]).create("x")`](crate::Group::new_dataset) |
//! | `g.create_dataset("x", data=a)` | `g.new_dataset_builder().with_data(&a).create("x")` | [`g.new_dataset_builder().with_data(&a).create("x")`](crate::Group::new_dataset_builder) |
//! | `chunks=(16, 16), compression="gzip", compression_opts=6, shuffle=True` | `.chunk((16, 16)).deflate(6).shuffle()` | [`.chunk(&[16, 16]).deflate(6).shuffle()`](crate::DatasetBuilder::chunk) (shuffle goes before the compressor whatever the order) |
//! | `maxshape=(None,)` | `.shape((0..,))` | [`.max_shape(&[None])`](crate::DatasetBuilder::max_shape) |
//! | `d.shape`, `d.dtype`, `d.chunks`, `d.compression` | `d.shape()`, `d.dtype()`, `d.chunk()`, `d.filters()` | [`shape`](crate::Dataset::shape), [`datatype`](crate::Dataset::datatype), [`chunk_dims`](crate::Dataset::chunk_dims), [`filters`](crate::Dataset::filters) |
//! | `d[()]` | `d.read_raw()` / `d.read()` | [`Dataset::read`](crate::Dataset::read) (a `Vec`), [`Dataset::read_array`](crate::Dataset::read_array) (an `ndarray` array), [`Dataset::read_scalar`](crate::Dataset::read_scalar) |
//! | `d[5, :, 100:200:2]` | `d.read_slice(s![5, .., 100..200;2])` | [`d.read_slice(s![5, .., 100..200;2])`](crate::Dataset::read_slice) |
//! | `d.read_direct(buf)` | — | [`Dataset::read_into`](crate::Dataset::read_into), [`Dataset::read_slice_into`](crate::Dataset::read_slice_into) |
//! | `d[...] = a` | `d.write(&a)` | [`Dataset::write`](crate::Dataset::write) (any array view, also transposed) |
//! | `d[1:3] = a` | `d.write_slice(&a, s![1..3])` | [`Dataset::write_slice`](crate::Dataset::write_slice) |
//! | `d.resize((n,))` | `d.resize(n)` | [`Dataset::resize`](crate::Dataset::resize), [`Dataset::append`](crate::Dataset::append) |
//! | `d.asstr()[()]` | `d.read_raw::<VarLenUnicode>()` | `d.read::<String>()` (any string dataset) |
//! | `d.astype("i8")[()]` with numpy's casting | `d.read::<i8>()` | [`Dataset::read`](crate::Dataset::read) (converts as the reference library does) |
//! | `d.attrs["units"]` | `d.attr("units")?.read_scalar()` | [`d.attr("units")?.read_scalar::<T>()`](crate::Attribute::read_scalar) |
//! | `d.attrs["scale"] = 0.5` | `d.new_attr::<f64>().create("scale")?.write_scalar(&0.5)` | [`d.new_attr::<f64>().create("scale")?.write_scalar(&0.5)`](crate::AttrBuilder::create) |
//! | `list(d.attrs)` | `d.attr_names()` | [`Dataset::attr_names`](crate::Dataset::attr_names) |
//! | `d.ref`, `f[r]` | — | [`Dataset::reference`](crate::Dataset::reference), [`File::deref_object`](crate::File::deref_object) |
//! | `f.create_dataset(..).id.get_offset()` and the low-level `h5py.h5*` modules | `hdf5_sys` | [`low_level`](crate::low_level) |
//! | `except KeyError` / `except OSError` | `hdf5::Error` | [`Error::kind`](crate::Error::kind): [`ErrorKind::NotFound`](crate::ErrorKind::NotFound), [`ErrorKind::WrongKind`](crate::ErrorKind::WrongKind), [`ErrorKind::ReadOnly`](crate::ErrorKind::ReadOnly), ... |
