use loco_rs::prelude::*;

use crate::{models::items, views};

#[debug_handler]
async fn list(State(ctx): State<AppContext>) -> Result<Response> {
    let items = items::Model::newest(&ctx.db).await?;
    format::json(views::items::ListResponse { items })
}

#[debug_handler]
async fn page(
    ViewEngine(v): ViewEngine<TeraView>,
    State(ctx): State<AppContext>,
) -> Result<Response> {
    let items = items::Model::newest(&ctx.db).await?;
    views::items::page(&v, &items)
}

pub fn routes() -> Routes {
    Routes::new().add("/items", get(list)).add("/page", get(page))
}
