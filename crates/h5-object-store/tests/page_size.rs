//! A file written with paged aggregation is cached in pages of its own page size (from its
//! superblock extension's file space info); other files in the default page. The files
//! are h5py's, read through `object_store`'s local file system (`file://`).

use std::path::PathBuf;

use h5_format::storage::DEFAULT_PAGE_SIZE;
use h5_io::OpenOptions;

#[test]
fn paged_files_are_cached_in_their_own_pages() {
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let dir: PathBuf = std::env::temp_dir().join(format!("h5-os-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = format!(
        "import h5py, numpy as np\n\
         with h5py.File({paged:?}, 'w', fs_strategy='page', fs_page_size=16384) as f:\n\
         \x20   f.create_dataset('x', data=np.arange(5000.0), chunks=(500,))\n\
         with h5py.File({plain:?}, 'w') as f:\n\
         \x20   f.create_dataset('x', data=np.arange(5000.0), chunks=(500,))\n",
        paged = dir.join("paged.h5").display().to_string(),
        plain = dir.join("plain.h5").display().to_string(),
    );
    let Some(_) = h5_oracle::require("h5py", h5_oracle::run(&py, &["-c", &script], &[])) else {
        return;
    };
    for (name, page) in [("paged.h5", 16384), ("plain.h5", DEFAULT_PAGE_SIZE)] {
        let url = format!("file://{}", dir.join(name).display());
        let r = h5_object_store::open_url(&url, OpenOptions::default()).unwrap();
        assert_eq!(r.storage.page_size(), page, "{name}");
        assert_eq!(
            h5_object_store::paged_page_size(&r.file),
            (name == "paged.h5").then_some(16384)
        );
        let v: Vec<f64> = r.file.dataset("/x").unwrap().read().unwrap();
        assert_eq!(v, (0..5000).map(f64::from).collect::<Vec<_>>());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
