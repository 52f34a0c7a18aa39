//! The audit worker: one tokio task in the server's process, over the lab's
//! `jobs` table (docs/app.md, "The background worker"). Loco's own background
//! worker (`BackgroundWorker` on a `Queue`) keeps its jobs in tables of its
//! own (or Redis), which the lab's schema does not have; this task is
//! spawned the way Loco runs its queue worker in-process (`tokio::spawn` at
//! start) and stops with the runtime.
use std::time::Duration;

use sea_orm::DatabaseConnection;
use tokio::task::JoinHandle;

use crate::models::jobs;

/// How long the worker sleeps when it finds no job (docs/app.md: at most 100 ms).
pub const IDLE_POLL: Duration = Duration::from_millis(100);

/// Spawns the worker: while jobs wait it takes the next at once; with none
/// (or after a database error, logged) it sleeps `IDLE_POLL`.
pub fn spawn(db: DatabaseConnection) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match jobs::Model::work_next(&db).await {
                Ok(true) => {}
                Ok(false) => tokio::time::sleep(IDLE_POLL).await,
                Err(err) => {
                    tracing::error!(err = %err, "audit worker");
                    tokio::time::sleep(IDLE_POLL).await;
                }
            }
        }
    })
}
