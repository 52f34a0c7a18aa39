use loco_rs::prelude::*;
use serde::Serialize;

use crate::models::items::Summary;

#[derive(Debug, Serialize)]
pub struct ListResponse {
    pub items: Vec<Summary>,
}

/// `/page`: the same rows through Tera (`assets/views/items/page.html`),
/// which escapes `& < > " '` in every `.html` template.
pub fn page(v: &impl ViewRenderer, items: &[Summary]) -> Result<Response> {
    format::render().view(v, "items/page.html", data!({ "items": items }))
}
