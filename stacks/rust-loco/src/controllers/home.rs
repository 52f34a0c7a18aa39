use loco_rs::prelude::*;

use crate::views::home::MessageResponse;

#[debug_handler]
async fn up() -> Result<Response> {
    format::text("ok")
}

#[debug_handler]
async fn json() -> Result<Response> {
    format::json(MessageResponse::hello())
}

pub fn routes() -> Routes {
    Routes::new().add("/up", get(up)).add("/json", get(json))
}
