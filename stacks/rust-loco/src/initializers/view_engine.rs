use async_trait::async_trait;
use axum::{Extension, Router as AxumRouter};
use loco_rs::{
    Result,
    app::{AppContext, Initializer},
    controller::views::{ViewEngine, engines},
};

/// Loco's Tera engine over `assets/views/**/*.html` (relative to the working
/// directory), loaded once at start: a release build has no hot reload.
pub struct ViewEngineInitializer;

#[async_trait]
impl Initializer for ViewEngineInitializer {
    fn name(&self) -> String {
        "view-engine".to_string()
    }

    async fn after_routes(&self, router: AxumRouter, _ctx: &AppContext) -> Result<AxumRouter> {
        let tera = engines::TeraView::build()?;
        Ok(router.layer(Extension(ViewEngine::from(tera))))
    }
}
