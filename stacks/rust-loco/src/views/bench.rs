//! Struct fields give the JSON key order docs/app.md asks for (a `data!({..})`
//! map would sort the keys).
use serde::Serialize;

use crate::models::bench_events::Latest;

#[derive(Debug, Serialize)]
pub struct UpstreamResponse {
    pub ok: bool,
    pub upstream: u16,
}

#[derive(Debug, Serialize)]
pub struct WriteResponse {
    pub ok: bool,
    pub id: i64,
}

#[derive(Debug, Serialize)]
pub struct ReadResponse {
    pub ok: bool,
    pub count: u64,
    pub latest: Vec<Latest>,
}

#[derive(Debug, Serialize)]
pub struct FailedResponse {
    pub ok: bool,
    pub error: String,
}

impl FailedResponse {
    #[must_use]
    pub fn new(error: impl std::fmt::Display) -> Self {
        Self { ok: false, error: error.to_string() }
    }
}
