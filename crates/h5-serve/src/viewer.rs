//! The h5web viewer (built from `@h5web/app` by `cargo xtask build-viewer` and embedded by
//! `build.rs`) and the index page of the files served.

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};

use crate::Shared;

include!(concat!(env!("OUT_DIR"), "/viewer_assets.rs"));

/// Whether the viewer bundle was embedded at build time.
pub fn built() -> bool {
    ASSETS.iter().any(|(p, _)| *p == "index.html")
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn page_of(title: &str, body: &str) -> Response {
    Html(format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>body{{font-family:sans-serif;margin:2em}}li{{margin:.3em 0}}</style></head>\
         <body>{body}</body></html>\n",
        escape(title)
    ))
    .into_response()
}

/// `/`: the viewer for `?file=NAME`; without it the list of files (or the one file).
pub async fn page(State(app): Shared, RawQuery(q): RawQuery) -> Response {
    let file = form_urlencoded::parse(q.unwrap_or_default().as_bytes())
        .find(|(k, _)| k == "file")
        .map(|(_, v)| v.into_owned());
    let Some(file) = file else {
        let names = tokio::task::spawn_blocking(move || app.files.list())
            .await
            .unwrap_or_default();
        if let [only] = names.as_slice() {
            let target: String = form_urlencoded::Serializer::new(String::new())
                .append_pair("file", only)
                .finish();
            return Redirect::to(&format!("./?{target}")).into_response();
        }
        let mut body = String::from("<h1>HDF5 files</h1><ul>");
        for n in &names {
            let q: String = form_urlencoded::Serializer::new(String::new())
                .append_pair("file", n)
                .finish();
            body.push_str(&format!(
                "<li><a href=\"./?{}\">{}</a></li>",
                escape(&q),
                escape(n)
            ));
        }
        if names.is_empty() {
            body.push_str("<li>no HDF5 file found</li>");
        }
        body.push_str("</ul>");
        return page_of("h5 serve", &body);
    };
    match ASSETS.iter().find(|(p, _)| *p == "index.html") {
        Some((_, html)) => {
            ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], *html).into_response()
        }
        None => page_of(
            &file,
            &format!(
                "<h1>{}</h1><p>This build of h5 has no viewer: run <code>cargo xtask \
                 build-viewer</code> and build again to embed h5web. The h5grove API is \
                 served under <a href=\"api/\">api/</a>, e.g. \
                 <a href=\"api/meta?file={}\">api/meta</a>.</p>",
                escape(&file),
                escape(&file)
            ),
        ),
    }
}

/// `/assets/NAME`: a file of the viewer bundle.
pub async fn asset(Path(name): Path<String>) -> Response {
    let want = format!("assets/{name}");
    let Some((_, bytes)) = ASSETS.iter().find(|(p, _)| *p == want) else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let ct = match name.rsplit('.').next() {
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    };
    (
        [
            (header::CONTENT_TYPE, ct),
            (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
        ],
        *bytes,
    )
        .into_response()
}
