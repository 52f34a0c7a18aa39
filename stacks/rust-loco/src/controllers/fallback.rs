//! 405 with a body. Loco's `fallback` middleware (config/production.yaml)
//! answers unknown paths with a text/plain 404; a known path with the wrong
//! method gets axum's bare 405, which has no Content-Type, so `App::after_routes`
//! installs this one for every route.
use loco_rs::prelude::*;
use axum::http::StatusCode;

pub async fn method_not_allowed() -> Result<Response> {
    format::render()
        .status(StatusCode::METHOD_NOT_ALLOWED)
        .text("method not allowed")
}
