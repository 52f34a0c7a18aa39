pub mod _entities;
pub mod audit;
pub mod bench_events;
pub mod items;
pub mod jobs;
pub mod orders;
pub mod pragmas;
pub mod sessions;
pub mod users;

use std::time::{SystemTime, UNIX_EPOCH};

/// Unix time in milliseconds, the unit of every time column (docs/app.md).
#[must_use]
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
