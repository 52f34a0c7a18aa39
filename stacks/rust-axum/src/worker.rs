//! The background worker (docs/app.md, "The background worker"): one std thread
//! with a SQLite connection of its own (not one of the pool's, so it never
//! waits for a request's connection nor holds one back), draining `jobs`
//! lowest id first. Each job is one `BEGIN IMMEDIATE` transaction: the
//! `audit` row in, the job out. While jobs wait it takes the next at once;
//! when there are none it sleeps `IDLE` and looks again.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread::{self, JoinHandle},
    time::Duration,
};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::{PRAGMAS, now_ms};

/// How long the worker sleeps when it found no job (docs/app.md: at most 100 ms).
pub const IDLE: Duration = Duration::from_millis(100);

/// Opens the worker's connection (with the pragmas every connection runs)
/// and starts the thread; it returns when `stop` is set.
pub fn spawn(db_path: &str, stop: Arc<AtomicBool>) -> rusqlite::Result<JoinHandle<()>> {
    let mut conn = Connection::open(db_path)?;
    conn.execute_batch(PRAGMAS)?;
    let handle = thread::Builder::new()
        .name("jobs-worker".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                match run_one(&mut conn) {
                    Ok(true) => {}
                    Ok(false) => thread::sleep(IDLE),
                    Err(e) => {
                        // The job stays queued (the transaction rolled back):
                        // say why once per attempt, and retry after a pause.
                        eprintln!("rust-axum: jobs worker: {e}");
                        thread::sleep(IDLE);
                    }
                }
            }
        })
        .expect("spawn the jobs worker thread");
    Ok(handle)
}

/// Does the lowest-id job, if any; `Ok(false)` when the queue is empty.
pub fn run_one(conn: &mut Connection) -> rusqlite::Result<bool> {
    // A plain read first, so an idle poll takes no write lock.
    let waiting = conn
        .prepare_cached("SELECT 1 FROM jobs LIMIT 1")?
        .query_row([], |_| Ok(()))
        .optional()?
        .is_some();
    if !waiting {
        return Ok(false);
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let job: Option<(i64, i64, String)> = tx
        .prepare_cached("SELECT id, order_id, action FROM jobs ORDER BY id LIMIT 1")?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let Some((id, order_id, action)) = job else {
        return Ok(false);
    };
    tx.prepare_cached("INSERT INTO audit (order_id, action, at) VALUES (?1, ?2, ?3)")?
        .execute((order_id, &action, now_ms()))?;
    tx.prepare_cached("DELETE FROM jobs WHERE id = ?1")?.execute([id])?;
    tx.commit()?;
    Ok(true)
}
