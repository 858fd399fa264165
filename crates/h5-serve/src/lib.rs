//! The [h5grove](https://github.com/silx-kit/h5grove) HTTP API (version 4.0.0, as h5web's
//! `H5GroveProvider` uses it) over HDF5 files read by `h5`, and the h5web viewer, as an
//! [axum] router a Rust web service can mount.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let roots = vec![h5_serve::Root::from_arg("data/")?];
//! let server = h5_serve::Server::new(roots, h5_serve::Config::default());
//! let app = axum::Router::new().nest("/hdf5", server.router());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8888").await?;
//! axum::serve(listener, app).await
//! # }
//! ```
//!
//! [`Server::api`] is the API alone at its root: `/` (status), `/meta`, `/attr`, `/data`,
//! `/stats`, `/paths`, with h5grove's query parameters (`file`, `path`, `resolve_links`,
//! `attr_keys`, `selection`, `format` = `json` | `bin` | `npy` | `csv` | `tiff`, `dtype` =
//! `origin` | `safe`, `flatten`) and h5grove's JSON, bytes, status codes and messages (`tiff`:
//! 2-D images, the pixels tifffile writes, in a baseline TIFF of our own). [`Server::router`]
//! serves the viewer at `/` (a folder's index page without `?file=`), its assets, and the API
//! under `/api`.
//!
//! Safe by default: the `file` parameter reaches only the roots given (absolute paths, `..`
//! and symlinks out are refused with 403, external links out of them do not resolve); a
//! selection larger than [`Config::max_bytes`] is refused with 413; with a
//! [`Config::token`], every request must carry it. Requests read in parallel, on tokio's
//! blocking threads, through one shared [`h5::File`] per file.

#![forbid(unsafe_code)]

mod content;
mod error;
mod files;
mod selection;
mod stats;
mod values;
mod viewer;

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

pub use error::ApiError;
pub use files::Root;

use content::{Entity, LinkResolution};
use values::Json;

/// Settings of a [`Server`].
#[derive(Clone, Debug)]
pub struct Config {
    /// The largest selection `/data` and `/stats` read, in bytes of the file's elements.
    pub max_bytes: u64,
    /// A token every request must carry (`Authorization: Bearer T`, `?token=T`, or the
    /// cookie the viewer page sets).
    pub token: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_bytes: 256 << 20,
            token: None,
        }
    }
}

/// The server: what is served and how. Cheap to turn into routers; they share the open
/// files.
#[derive(Clone, Debug)]
pub struct Server {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    files: files::Files,
    config: Config,
}

type Shared = State<Arc<Inner>>;

impl Server {
    /// Serve `roots` with `config`.
    pub fn new(roots: Vec<Root>, config: Config) -> Server {
        Server {
            inner: Arc::new(Inner {
                files: files::Files::new(roots),
                config,
            }),
        }
    }

    /// The names of the HDF5 files served (what the `file` parameter takes).
    pub fn files(&self) -> Vec<String> {
        self.inner.files.list()
    }

    /// Whether the h5web viewer was embedded at build time (`cargo xtask build-viewer`).
    pub fn has_viewer(&self) -> bool {
        viewer::built()
    }

    /// Listen on `addr` and serve [`Server::router`] until interrupted (Ctrl-C), on a tokio
    /// runtime of its own; `on_bound` is told the address bound (port 0 picks one).
    pub fn run(
        &self,
        addr: std::net::SocketAddr,
        on_bound: impl FnOnce(std::net::SocketAddr),
    ) -> std::io::Result<()> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let app = self.router();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            on_bound(listener.local_addr()?);
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await
        })
    }

    /// The h5grove API at the router's root.
    pub fn api(&self) -> axum::Router {
        let r = axum::Router::new()
            .route("/", get(|| async { "ok" }))
            .route("/meta", get(meta))
            .route("/attr", get(attr))
            .route("/data", get(data))
            .route("/stats", get(stats))
            .route("/paths", get(paths));
        self.guard(r)
    }

    /// The viewer at `/` (`?file=NAME` opens a file, without it an index of the files), its
    /// assets, and the API under `/api`.
    pub fn router(&self) -> axum::Router {
        let r = axum::Router::new()
            .route("/", get(viewer::page))
            .route("/api/", get(|| async { "ok" }))
            .route("/assets/{name}", get(viewer::asset));
        self.guard(r).nest("/api", self.api())
    }

    fn guard(&self, r: axum::Router<Arc<Inner>>) -> axum::Router {
        let inner = self.inner.clone();
        r.layer(axum::middleware::from_fn_with_state(
            inner.clone(),
            check_token,
        ))
        .with_state(inner)
    }
}

/// Constant-time equality of two tokens.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The token cookie's name.
const COOKIE: &str = "h5serve_token";

async fn check_token(
    State(app): Shared,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let Some(token) = app.config.token.as_deref() else {
        return next.run(req).await;
    };
    let t = token.as_bytes();
    let h = req.headers();
    let bearer = h
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|v| same(v.as_bytes(), t));
    let cookie = h
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .any(|(k, v)| k == COOKIE && same(v.as_bytes(), t));
    let query = form_urlencoded::parse(req.uri().query().unwrap_or("").as_bytes())
        .any(|(k, v)| k == "token" && same(v.as_bytes(), t));
    if !(bearer || cookie || query) {
        return reply_error(ApiError::new(401, "a valid token is required"));
    }
    let mut resp = next.run(req).await;
    if query && !cookie {
        let c = format!("{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/");
        if let Ok(v) = HeaderValue::from_str(&c) {
            resp.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    resp
}

/// The query parameters, in order (`attr_keys` repeats).
struct Query(Vec<(String, String)>);

impl Query {
    fn parse(raw: Option<String>) -> Query {
        Query(
            form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// The last value of `key` (as Starlette takes it).
    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn all(&self, key: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The required `file` parameter (FastAPI's 422 when missing).
    fn file(&self) -> Result<&str, Box<Response>> {
        self.get("file").ok_or_else(|| {
            let body = r#"{"detail":[{"type":"missing","loc":["query","file"],"msg":"Field required","input":null}]}"#;
            Box::new(json_response(
                StatusCode::UNPROCESSABLE_ENTITY,
                body.to_string(),
            ))
        })
    }

    fn path(&self) -> String {
        self.get("path").unwrap_or("/").to_string()
    }
}

fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn reply_error(e: ApiError) -> Response {
    let mut j = Json::new();
    j.raw("{\"message\":");
    j.string(&e.message);
    j.raw("}");
    let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_response(status, j.out)
}

/// Run `f` on a blocking thread and answer its result.
async fn blocking(
    app: Arc<Inner>,
    f: impl FnOnce(&Inner) -> Result<Response, ApiError> + Send + 'static,
) -> Response {
    match tokio::task::spawn_blocking(move || f(&app)).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => reply_error(e),
        Err(e) => reply_error(ApiError::internal(format!("the request failed: {e}"))),
    }
}

macro_rules! file_or_422 {
    ($q:expr) => {
        match $q.file() {
            Ok(f) => f.to_string(),
            Err(r) => return *r,
        }
    };
}

async fn meta(State(app): Shared, RawQuery(q): RawQuery) -> Response {
    let q = Query::parse(q);
    let file = file_or_422!(q);
    let (path, res) = (q.path(), q.get("resolve_links").map(str::to_string));
    blocking(app, move |app| {
        let res = LinkResolution::parse(res.as_deref())?;
        let o = app.files.open(&file)?;
        let e = content::entity(&o.file, &o.basename, &path, res)?;
        let mut j = Json::new();
        content::metadata(&mut j, &o.file, &e, 1)?;
        Ok(json_response(StatusCode::OK, j.out))
    })
    .await
}

fn object(e: Entity, what: &str) -> Result<h5::Node, ApiError> {
    match e {
        Entity::Object { node, .. } => Ok(node),
        other => Err(ApiError::internal(format!(
            "{} is not a {what}",
            other.path()
        ))),
    }
}

async fn attr(State(app): Shared, RawQuery(q): RawQuery) -> Response {
    let q = Query::parse(q);
    let file = file_or_422!(q);
    let path = q.path();
    let keys = q.all("attr_keys");
    blocking(app, move |app| {
        let o = app.files.open(&file)?;
        let e = content::entity(&o.file, &o.basename, &path, LinkResolution::OnlyValid)?;
        let node = object(e, "resolved entity")?;
        let attrs = match &node {
            h5::Node::Group(g) => g.attrs()?,
            h5::Node::Dataset(d) => d.attrs()?,
            h5::Node::Datatype(t) => t.attrs()?,
        };
        let chosen: Vec<&h5::Attribute> = if keys.is_empty() {
            attrs.iter().collect()
        } else {
            keys.iter()
                .map(|k| {
                    attrs.iter().find(|a| a.name() == k).ok_or_else(|| {
                        ApiError::internal(format!(
                            "\"Can't open attribute (can't locate attribute: '{k}')\""
                        ))
                    })
                })
                .collect::<Result<_, _>>()?
        };
        let mut j = Json::new();
        j.raw("{");
        for (k, a) in chosen.iter().enumerate() {
            if k > 0 {
                j.raw(",");
            }
            j.string(a.name());
            j.raw(":");
            let v = content::attr_values(&o.file, a)?;
            j.raw(&v.json(false)?);
        }
        j.raw("}");
        Ok(json_response(StatusCode::OK, j.out))
    })
    .await
}

/// Read the dataset at `path` with `selection` (bounded by the limit).
fn read_selected(
    app: &Inner,
    file: &str,
    path: &str,
    selection: Option<&str>,
    text: bool,
) -> Result<values::Values, ApiError> {
    let o = app.files.open(file)?;
    let e = content::entity(&o.file, &o.basename, path, LinkResolution::OnlyValid)?;
    let h5::Node::Dataset(d) = object(e, "dataset")? else {
        return Err(ApiError::internal(format!("{path} is not a dataset")));
    };
    let dims = d.shape();
    let applied = match selection {
        None => selection::Applied::all(&dims),
        Some(text) => {
            let members = selection::parse(text)?;
            if matches!(d.dataspace(), h5::Dataspace::Null) {
                return Err(ApiError::internal("Empty datasets cannot be sliced"));
            }
            selection::apply(text, &members, &dims)?
        }
    };
    // Text answers (JSON, CSV) take up to ~24 bytes more per element than the elements.
    let extra = if text {
        applied.len().saturating_mul(24)
    } else {
        0
    };
    let bytes = content::selection_bytes(&d, &applied).saturating_add(extra);
    if bytes > app.config.max_bytes {
        return Err(ApiError::new(
            413,
            format!(
                "the selection of {path} is {bytes} bytes (as {}), more than the server's limit \
                 of {} bytes: select a smaller slice (or raise the limit, h5 serve --max-bytes)",
                if text { "text" } else { "bytes" },
                app.config.max_bytes
            ),
        ));
    }
    content::read(&o.file, &d, &applied)
}

/// FastAPI's (pydantic's) boolean query parameter; `Err` is its 422 answer.
fn bool_arg(name: &str, v: Option<&str>) -> Result<bool, Box<Response>> {
    match v.map(str::to_lowercase).as_deref() {
        None => Ok(false),
        Some("1" | "true" | "t" | "yes" | "y" | "on") => Ok(true),
        Some("0" | "false" | "f" | "no" | "n" | "off") => Ok(false),
        Some(_) => {
            let mut j = Json::new();
            j.raw(&format!(
                "{{\"detail\":[{{\"type\":\"bool_parsing\",\"loc\":[\"query\",\"{name}\"],\
                 \"msg\":\"Input should be a valid boolean, unable to interpret input\",\"input\":"
            ));
            j.string(v.unwrap_or_default());
            j.raw("}]}");
            Err(Box::new(json_response(
                StatusCode::UNPROCESSABLE_ENTITY,
                j.out,
            )))
        }
    }
}

async fn data(State(app): Shared, RawQuery(q): RawQuery) -> Response {
    let q = Query::parse(q);
    let file = file_or_422!(q);
    let path = q.path();
    let selection = q.get("selection").map(str::to_string);
    let dtype = q.get("dtype").unwrap_or("origin").to_string();
    let format = q.get("format").unwrap_or("json").to_string();
    let flatten = match bool_arg("flatten", q.get("flatten")) {
        Ok(f) => f,
        Err(r) => return *r,
    };
    blocking(app, move |app| {
        let text = !matches!(format.as_str(), "bin" | "npy");
        let mut v = read_selected(app, &file, &path, selection.as_deref(), text)?;
        match dtype.as_str() {
            "origin" => {}
            "safe" => {
                let n = v.numeric().ok_or_else(|| {
                    ApiError::query("Unsupported dtype safe for non-numeric data")
                })?;
                v.convert(n, n.safe())?;
            }
            other => return Err(ApiError::query(format!("Unsupported dtype {other}"))),
        }
        if flatten && !v.shape.is_empty() {
            v.shape = vec![v.len() as u64];
        }
        encode(&v, &format)
    })
    .await
}

/// h5grove's `encode` (in its order of checks).
fn encode(v: &values::Values, format: &str) -> Result<Response, ApiError> {
    let bytes = |ct: &'static str, disposition: Option<&'static str>, body: Vec<u8>| {
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
        if let Some(d) = disposition {
            h.insert(header::CONTENT_DISPOSITION, HeaderValue::from_static(d));
        }
        (StatusCode::OK, h, body).into_response()
    };
    if format == "json" {
        return Ok(json_response(StatusCode::OK, v.json(false)?));
    }
    if format == "bin" {
        if v.dtype.has_variable_length() || v.empty {
            return Err(ApiError::query(
                "Unsupported encoding bin for variable-length and empty content",
            ));
        }
        return Ok(bytes("application/octet-stream", None, v.bytes.clone()));
    }
    let Some(n) = v.numeric() else {
        return Err(ApiError::query(format!(
            "Unsupported encoding {format} for non-numeric content"
        )));
    };
    if format == "npy" {
        return Ok(bytes(
            "application/octet-stream",
            Some("attachment; filename=\"data.npy\""),
            values::npy(v, n),
        ));
    }
    if v.shape.is_empty() {
        return Err(ApiError::query(format!(
            "Unsupported encoding {format} for empty and scalar datasets"
        )));
    }
    match format {
        "csv" => Ok(bytes(
            "text/csv",
            Some("attachment; filename=\"data.csv\""),
            values::csv(v, n)?,
        )),
        "tiff" => Ok(bytes(
            "image/tiff",
            Some("attachment; filename=\"data.tiff\""),
            values::tiff(v, n)?,
        )),
        _ => Err(ApiError::query(format!("Unsupported encoding {format}"))),
    }
}

async fn stats(State(app): Shared, RawQuery(q): RawQuery) -> Response {
    let q = Query::parse(q);
    let file = file_or_422!(q);
    let path = q.path();
    let selection = q.get("selection").map(str::to_string);
    blocking(app, move |app| {
        let v = read_selected(app, &file, &path, selection.as_deref(), false)?;
        let n = v.numeric().ok_or_else(|| {
            ApiError::internal(format!("no statistics of non-numeric data at {path}"))
        })?;
        Ok(json_response(StatusCode::OK, stats::stats_json(&v, n)?))
    })
    .await
}

async fn paths(State(app): Shared, RawQuery(q): RawQuery) -> Response {
    let q = Query::parse(q);
    let file = file_or_422!(q);
    let (path, res) = (q.path(), q.get("resolve_links").map(str::to_string));
    blocking(app, move |app| {
        let res = LinkResolution::parse(res.as_deref())?;
        let o = app.files.open(&file)?;
        let base = content::entity(&o.file, &o.basename, &path, res)?;
        let Entity::Object {
            node: h5::Node::Group(g),
            ..
        } = &base
        else {
            return Err(ApiError::internal(format!("{path} is not a group")));
        };
        let mut rel = Vec::new();
        let mut seen = std::collections::HashSet::from([g.reference()?.addr()]);
        content::visit(g, "", &mut seen, &mut rel)?;
        let mut j = Json::new();
        j.raw("[");
        j.string(&path);
        for r in rel {
            let full = content::join(&path, &r);
            // An error inside h5py's visit escapes h5grove as a 500.
            content::entity(&o.file, &o.basename, &full, res)
                .map_err(|e| ApiError::internal(e.message))?;
            j.raw(",");
            j.string(&full);
        }
        j.raw("]");
        Ok(json_response(StatusCode::OK, j.out))
    })
    .await
}
