use axum::http::StatusCode;
use loco_rs::prelude::*;

use crate::{
    initializers::upstream::Upstream,
    models::{bench_events, pragmas::Pragmas},
    views::bench::{FailedResponse, ReadResponse, UpstreamResponse, WriteResponse},
};

#[debug_handler]
async fn upstream(SharedStore(up): SharedStore<Upstream>) -> Result<Response> {
    match up.delay().await {
        Ok(status) => format::json(UpstreamResponse { ok: true, upstream: status }),
        Err(e) => format::render()
            .status(StatusCode::BAD_GATEWAY)
            .json(FailedResponse::new(e)),
    }
}

#[debug_handler]
async fn write(State(ctx): State<AppContext>) -> Result<Response> {
    match bench_events::Model::record(&ctx.db).await {
        Ok(id) => format::json(WriteResponse { ok: true, id }),
        Err(e) => format::render()
            .status(StatusCode::SERVICE_UNAVAILABLE)
            .json(FailedResponse::new(e)),
    }
}

#[debug_handler]
async fn read(State(ctx): State<AppContext>) -> Result<Response> {
    let (count, latest) = bench_events::Model::count_and_latest(&ctx.db).await?;
    format::json(ReadResponse { ok: true, count, latest })
}

#[debug_handler]
async fn pragmas(State(ctx): State<AppContext>) -> Result<Response> {
    format::json(Pragmas::of_one_connection(&ctx.db).await?)
}

pub fn routes() -> Routes {
    Routes::new()
        .prefix("/bench")
        .add("/upstream", get(upstream))
        .add("/write", post(write))
        .add("/read", get(read))
        .add("/pragmas", get(pragmas))
}
