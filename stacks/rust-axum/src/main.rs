//! The lab app (docs/app.md) on axum + tokio, SQLite through rusqlite
//! and an r2d2 pool, /page through askama; the signed-in routes in
//! `signed_in.rs` (CSRF in `csrf.rs`), their jobs' worker in `worker.rs`.

mod csrf;
mod signed_in;
mod worker;

use std::{
    env,
    num::NonZeroUsize,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use askama::Template;
use axum::{
    Json, Router,
    extract::State,
    http::{StatusCode, header},
    response::{Html, IntoResponse, Response},
    routing::{get, post},
    serve::ListenerExt,
};
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, TransactionBehavior};
use serde::Serialize;

// The allocator is a build-time choice (Cargo features; README, "Optimizing"):
// without either feature the binary uses glibc's malloc.
#[cfg(all(feature = "mimalloc", feature = "jemalloc"))]
compile_error!("features mimalloc and jemalloc both set a global allocator: pick one");

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(feature = "jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

type Pool = r2d2::Pool<SqliteConnectionManager>;

/// Run on every connection the pool opens, before the pool hands it out.
const PRAGMAS: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA busy_timeout = 5000;
PRAGMA cache_size = 2000;
PRAGMA mmap_size = 134217728;
PRAGMA journal_size_limit = 67108864;
PRAGMA foreign_keys = ON;
";

/// 200 ASCII bytes, the payload of every /bench/write row.
const PAYLOAD: &str = "stacklab-bench-write-payload-0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopq";
const _: () = assert!(PAYLOAD.len() == 200);

struct AppState {
    pool: Pool,
    http: reqwest::Client,
    upstream_delay_url: String,
    /// The CSRF key, 256 random bits drawn at start (never stored or logged).
    csrf: csrf::Csrf,
}

/// Unix time in milliseconds, as every table stores it.
fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

type Shared = State<Arc<AppState>>;

#[derive(Serialize)]
struct Item {
    id: i64,
    title: String,
    created_at: i64,
}

#[derive(Serialize)]
struct Event {
    id: i64,
    created_at: i64,
}

#[derive(Template)]
#[template(path = "page.html")]
struct PageTemplate {
    items: Vec<Item>,
}

/// A failure inside a handler; each route decides the status it maps to.
struct AppError {
    status: StatusCode,
    message: String,
}

impl AppError {
    fn unavailable(e: impl std::fmt::Display) -> Self {
        AppError { status: StatusCode::SERVICE_UNAVAILABLE, message: e.to_string() }
    }
    fn internal(e: impl std::fmt::Display) -> Self {
        AppError { status: StatusCode::INTERNAL_SERVER_ERROR, message: e.to_string() }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        // A struct, not json!(): serde_json's map would sort the keys.
        #[derive(Serialize)]
        struct Failed {
            ok: bool,
            error: String,
        }
        (self.status, Json(Failed { ok: false, error: self.message })).into_response()
    }
}

/// Runs `f` with a pooled connection on tokio's blocking pool (capped to the
/// pool's size unless BLOCKING_THREADS says otherwise), so a database call
/// never stalls an async worker.
async fn with_conn<T, F>(pool: &Pool, f: F) -> Result<T, AppError>
where
    T: Send + 'static,
    F: FnOnce(&mut Connection) -> Result<T, AppError> + Send + 'static,
{
    let pool = pool.clone();
    tokio::task::spawn_blocking(move || {
        let mut conn = pool.get().map_err(AppError::unavailable)?;
        f(&mut conn)
    })
    .await
    .map_err(AppError::internal)?
}

fn newest_items(conn: &mut Connection) -> Result<Vec<Item>, AppError> {
    let mut stmt = conn
        .prepare_cached("SELECT id, title, created_at FROM items ORDER BY id DESC LIMIT 20")
        .map_err(AppError::internal)?;
    let rows = stmt
        .query_map([], |r| Ok(Item { id: r.get(0)?, title: r.get(1)?, created_at: r.get(2)? }))
        .map_err(AppError::internal)?;
    rows.collect::<Result<_, _>>().map_err(AppError::internal)
}

async fn up() -> &'static str {
    "ok"
}

async fn hello() -> Response {
    #[derive(Serialize)]
    struct Message {
        message: &'static str,
    }
    Json(Message { message: "Hello, World!" }).into_response()
}

async fn items(State(s): Shared) -> Result<Response, AppError> {
    #[derive(Serialize)]
    struct Items {
        items: Vec<Item>,
    }
    let items = with_conn(&s.pool, newest_items).await?;
    Ok(Json(Items { items }).into_response())
}

async fn page(State(s): Shared) -> Result<Response, AppError> {
    let items = with_conn(&s.pool, newest_items).await?;
    let html = PageTemplate { items }.render().map_err(AppError::internal)?;
    Ok(Html(html).into_response())
}

async fn upstream(State(s): Shared) -> Response {
    #[derive(Serialize)]
    struct Ok {
        ok: bool,
        upstream: u16,
    }
    let result = async {
        let resp = s.http.get(&s.upstream_delay_url).send().await?.error_for_status()?;
        let status = resp.status().as_u16();
        // Read the body to the end so the connection goes back to the pool.
        resp.bytes().await?;
        Result::<u16, reqwest::Error>::Ok(status)
    }
    .await;
    match result {
        Result::Ok(status) => Json(Ok { ok: true, upstream: status }).into_response(),
        Err(e) => AppError { status: StatusCode::BAD_GATEWAY, message: e.to_string() }.into_response(),
    }
}

async fn write(State(s): Shared) -> Result<Response, AppError> {
    #[derive(Serialize)]
    struct Written {
        ok: bool,
        id: i64,
    }
    let id = with_conn(&s.pool, |conn| {
        let now = now_ms();
        // BEGIN IMMEDIATE: writers queue on busy_timeout instead of failing on lock upgrade.
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(AppError::unavailable)?;
        tx.prepare_cached("INSERT INTO bench_events (payload, created_at) VALUES (?1, ?2)")
            .and_then(|mut stmt| stmt.execute((PAYLOAD, now)))
            .map_err(AppError::unavailable)?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(AppError::unavailable)?;
        Ok(id)
    })
    .await?;
    Ok(Json(Written { ok: true, id }).into_response())
}

async fn read(State(s): Shared) -> Result<Response, AppError> {
    #[derive(Serialize)]
    struct Read {
        ok: bool,
        count: i64,
        latest: Vec<Event>,
    }
    let body = with_conn(&s.pool, |conn| {
        // One read transaction, so count and latest come from the same snapshot.
        let tx = conn.transaction().map_err(AppError::internal)?;
        let count: i64 = tx
            .query_row("SELECT COUNT(*) FROM bench_events", [], |r| r.get(0))
            .map_err(AppError::internal)?;
        let latest = {
            let mut stmt = tx
                .prepare_cached("SELECT id, created_at FROM bench_events ORDER BY id DESC LIMIT 20")
                .map_err(AppError::internal)?;
            let rows = stmt
                .query_map([], |r| Ok(Event { id: r.get(0)?, created_at: r.get(1)? }))
                .map_err(AppError::internal)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(AppError::internal)?
        };
        tx.commit().map_err(AppError::internal)?;
        Ok(Read { ok: true, count, latest })
    })
    .await?;
    Ok(Json(body).into_response())
}

async fn pragmas(State(s): Shared) -> Result<Response, AppError> {
    #[derive(Serialize)]
    struct Pragmas {
        journal_mode: String,
        synchronous: i64,
        busy_timeout: i64,
        cache_size: i64,
        mmap_size: i64,
        journal_size_limit: i64,
        foreign_keys: i64,
        connection: String,
    }
    let body = with_conn(&s.pool, |conn| {
        // The connection's name is its SQLite handle, which sqlite3_open_v2
        // allocated when r2d2 opened it: one per pooled connection.
        // SAFETY: only the pointer's value is read; the handle is not used.
        let connection = format!("{:p}", unsafe { conn.handle() });
        let int = |name: &str| conn.pragma_query_value(None, name, |r| r.get::<_, i64>(0)).map_err(AppError::internal);
        Ok(Pragmas {
            journal_mode: conn
                .pragma_query_value(None, "journal_mode", |r| r.get(0))
                .map_err(AppError::internal)?,
            synchronous: int("synchronous")?,
            busy_timeout: int("busy_timeout")?,
            cache_size: int("cache_size")?,
            mmap_size: int("mmap_size")?,
            journal_size_limit: int("journal_size_limit")?,
            foreign_keys: int("foreign_keys")?,
            connection,
        })
    })
    .await?;
    Ok(Json(body).into_response())
}

async fn not_found() -> impl IntoResponse {
    (StatusCode::NOT_FOUND, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], "not found")
}

async fn method_not_allowed() -> impl IntoResponse {
    (StatusCode::METHOD_NOT_ALLOWED, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], "method not allowed")
}

fn app(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/up", get(up))
        .route("/json", get(hello))
        .route("/items", get(items))
        .route("/page", get(page))
        .route("/bench/upstream", get(upstream))
        .route("/bench/write", post(write))
        .route("/bench/read", get(read))
        .route("/bench/pragmas", get(pragmas))
        .route("/sign_in", get(signed_in::sign_in_page).post(signed_in::sign_in))
        .route("/sign_out", post(signed_in::sign_out))
        .route("/account", get(signed_in::account))
        .route("/orders", post(signed_in::place_order))
        .route("/orders/{id}/cancel", post(signed_in::cancel_order))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
}

/// CPUs given by the lab (LAB_CPUS), else the CPUs this process may run on.
fn cpus() -> usize {
    match env::var("LAB_CPUS") {
        Result::Ok(v) => v.trim().parse::<usize>().ok().filter(|n| *n > 0).unwrap_or_else(|| {
            eprintln!("LAB_CPUS={v:?} is not a positive integer");
            std::process::exit(2)
        }),
        Err(_) => std::thread::available_parallelism().map(NonZeroUsize::get).unwrap_or(1),
    }
}

/// tokio's cap on blocking threads: BLOCKING_THREADS, else the pool size, so
/// a burst queues in tokio instead of in threads waiting in `pool.get()`.
fn blocking_threads(pool_size: usize) -> usize {
    match env::var("BLOCKING_THREADS") {
        Result::Ok(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .unwrap_or_else(|| fail(format!("BLOCKING_THREADS={v:?} is not a positive integer"))),
        Err(_) => pool_size,
    }
}

fn main() {
    let port = env::var("PORT").unwrap_or_else(|_| "8080".into());
    let db_path = env::var("DATABASE_PATH").unwrap_or_else(|_| "/data/app.db".into());
    let upstream = env::var("UPSTREAM_URL").unwrap_or_else(|_| "http://127.0.0.1:9090".into());
    let cpus = cpus();
    // SQLite work is CPU-bound (page cache, mmap); a second connection per CPU
    // covers a writer waiting on the WAL lock or an fsync at checkpoint.
    let pool_size = 2 * cpus;
    let blocking = blocking_threads(pool_size);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cpus)
        .max_blocking_threads(blocking)
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(format!("tokio runtime: {e}")));
    runtime.block_on(serve(port, db_path, upstream, pool_size as u32));
}

fn fail(msg: String) -> ! {
    eprintln!("rust-axum: {msg}");
    std::process::exit(1)
}

async fn serve(port: String, db_path: String, upstream: String, pool_size: u32) {
    let manager = SqliteConnectionManager::file(&db_path)
        .with_init(|c| c.execute_batch(PRAGMAS));
    // min_idle defaults to max_size: every connection is opened (and its
    // pragmas run) before the first request.
    let pool = r2d2::Pool::builder()
        .max_size(pool_size)
        .connection_timeout(Duration::from_secs(10))
        .build(manager)
        .unwrap_or_else(|e| fail(format!("open {db_path}: {e}")));
    let http = reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(90))
        .build()
        .unwrap_or_else(|e| fail(format!("http client: {e}")));
    let state = Arc::new(AppState {
        pool,
        http,
        upstream_delay_url: format!("{}/delay?ms=100", upstream.trim_end_matches('/')),
        csrf: csrf::Csrf::new(),
    });
    let stop_worker = Arc::new(AtomicBool::new(false));
    let worker = worker::spawn(&db_path, stop_worker.clone())
        .unwrap_or_else(|e| fail(format!("open {db_path} for the jobs worker: {e}")));

    let addr = format!("0.0.0.0:{port}");
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .unwrap_or_else(|e| fail(format!("listen on {addr}: {e}")))
        .tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown_signal())
        .await
        .unwrap_or_else(|e| fail(format!("serve: {e}")));
    // The worker finishes the job in hand (at most one transaction), then stops.
    stop_worker.store(true, Ordering::Relaxed);
    let _ = worker.join();
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).unwrap_or_else(|e| fail(format!("signal: {e}")));
    tokio::select! {
        _ = term.recv() => {},
        _ = tokio::signal::ctrl_c() => {},
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    /// The SQLite this binary carries (README, "The SQLite in this image"):
    /// `cargo test --release` with build-image's RUSTFLAGS and target builds
    /// libsqlite3-sys as the image does, so these are the image's options.
    #[test]
    fn bundled_sqlite_compile_options() {
        let conn = Connection::open_in_memory().unwrap();
        let version: String = conn.query_row("SELECT sqlite_version()", [], |r| r.get(0)).unwrap();
        let mut stmt = conn.prepare("PRAGMA compile_options").unwrap();
        let options: Vec<String> = stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap();
        println!("SQLite {version}\n{}", options.join("\n"));

        assert_eq!(version, "3.53.2", "README and stack.env name this version");
        assert!(options.iter().any(|o| o == "THREADSAFE=1"), "serialized build expected");
        // No DEFAULT_MEMSTATUS=0: memory statistics are on, so every
        // allocation takes SQLite's global memstatus mutex; the counter
        // of bytes in use is non-zero only when they are (as sqliteinfo asks).
        assert!(!options.iter().any(|o| o.starts_with("DEFAULT_MEMSTATUS")), "memstatus option changed");
        let (mut used, mut highwater) = (0i64, 0i64);
        let rc = unsafe {
            rusqlite::ffi::sqlite3_status64(rusqlite::ffi::SQLITE_STATUS_MEMORY_USED, &mut used, &mut highwater, 0)
        };
        assert_eq!(rc, rusqlite::ffi::SQLITE_OK);
        println!("memory statistics: {used} bytes in use (0 would mean off)");
        assert!(used > 0, "memory statistics are off");
        assert_eq!(unsafe { rusqlite::ffi::sqlite3_threadsafe() }, 1);
    }
}
