use std::{path::Path, time::Duration};

use async_trait::async_trait;
use axum::Router as AxumRouter;
use loco_rs::{
    Result,
    app::{AppContext, Hooks, Initializer},
    bgworker::Queue,
    boot::{self, BootResult, ServeParams, StartMode, create_app},
    config::{self, Config},
    controller::AppRoutes,
    environment::{Environment, resolve_from_env},
    logger,
    task::Tasks,
};
use migration::Migrator;
use sea_orm::{
    ConnectOptions, Database, DatabaseConnection, DbErr,
    sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous},
};

use crate::{controllers, initializers, workers};

pub struct App;

#[async_trait]
impl Hooks for App {
    fn app_name() -> &'static str {
        env!("CARGO_CRATE_NAME")
    }

    fn app_version() -> String {
        env!("CARGO_PKG_VERSION").to_string()
    }

    async fn boot(mode: StartMode, environment: &Environment, config: Config) -> Result<BootResult> {
        create_app::<Self, Migrator>(mode, environment, config).await
    }

    async fn initializers(_ctx: &AppContext) -> Result<Vec<Box<dyn Initializer>>> {
        Ok(vec![
            Box::new(initializers::view_engine::ViewEngineInitializer),
            Box::new(initializers::upstream::UpstreamInitializer),
            Box::new(initializers::csrf::CsrfInitializer),
        ])
    }

    /// `empty()`, not `with_default_routes()`: docs/app.md's app has `/up` and
    /// answers 404 on every other path, Loco's `/_ping` and `/_health` included.
    fn routes(_ctx: &AppContext) -> AppRoutes {
        AppRoutes::empty()
            .add_route(controllers::home::routes())
            .add_route(controllers::items::routes())
            .add_route(controllers::bench::routes())
            .add_route(controllers::sessions::routes())
            .add_route(controllers::account::routes())
    }

    async fn after_routes(router: AxumRouter, _ctx: &AppContext) -> Result<AxumRouter> {
        Ok(router.method_not_allowed_fallback(controllers::fallback::method_not_allowed))
    }

    /// Swaps Loco's pool for one that runs docs/app.md's pragmas on every
    /// connection it opens. `loco_rs::db::connect` runs its SQLite pragmas
    /// (`run_on_start`) once, through whichever pooled connection answers, so
    /// only the file-level `journal_mode = WAL` reaches the others; sqlx's
    /// connect options, by contrast, are applied by every new connection.
    async fn after_context(ctx: AppContext) -> Result<AppContext> {
        let db = connect(&ctx.config.database).await?;
        ctx.db.clone().close().await?;
        let mut builder = AppContext::builder(ctx.environment.clone(), db, ctx.config.clone())
            .storage(ctx.storage.clone())
            .cache(ctx.cache.clone())
            .shared_store(ctx.shared_store.clone());
        if let Some(queue) = ctx.queue_provider.clone() {
            builder = builder.queue_provider(queue);
        }
        if let Some(mailer) = ctx.mailer.clone() {
            builder = builder.mailer(mailer);
        }
        Ok(builder.build())
    }

    async fn connect_workers(_ctx: &AppContext, _queue: &Queue) -> Result<()> {
        Ok(())
    }

    fn register_tasks(_tasks: &mut Tasks) {}

    async fn truncate(_ctx: &AppContext) -> Result<()> {
        Ok(())
    }

    async fn seed(_ctx: &AppContext, _base: &Path) -> Result<()> {
        Ok(())
    }
}

/// The pool of config/production.yaml's `database:` block, with the pragmas
/// set on sqlx's connect options, which every new connection runs before the
/// pool hands it out.
async fn connect(cfg: &config::Database) -> std::result::Result<DatabaseConnection, DbErr> {
    let mut opt = ConnectOptions::new(&cfg.uri);
    opt.max_connections(cfg.max_connections)
        .min_connections(cfg.min_connections)
        .connect_timeout(Duration::from_millis(cfg.connect_timeout))
        .idle_timeout(Duration::from_millis(cfg.idle_timeout))
        .sqlx_logging(cfg.enable_logging)
        .test_before_acquire(false)
        .map_sqlx_sqlite_opts(|o| {
            o.journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_millis(5000))
                .pragma("cache_size", "2000")
                .pragma("mmap_size", "134217728")
                .pragma("journal_size_limit", "67108864")
                .foreign_keys(true)
        });
    if let Some(ms) = cfg.acquire_timeout {
        opt.acquire_timeout(Duration::from_millis(ms));
    }
    Database::connect(opt).await
}

/// `cargo loco start` without its first step: Loco's CLI builds an
/// `AppContext` (and a pool) before dispatching, then `create_app` builds
/// another, and the first pool stays open, idle, for the life of the server.
/// The image starts the server with no arguments, so this is its entry.
/// It also starts the audit worker (`workers::audit`) in this process, as
/// Loco's `start` spawns its queue worker beside the server; `ServerOnly`,
/// since Loco's own queue is not used (its tables are not the lab's).
pub async fn start() -> Result<()> {
    let environment: Environment = resolve_from_env().into();
    let config = App::load_config(&environment).await?;
    logger::init::<App>(&config.logger)?;
    let boot = create_app::<App, Migrator>(StartMode::ServerOnly, &environment, config).await?;
    workers::audit::spawn(boot.app_context.db.clone());
    let serve = ServeParams {
        port: boot.app_context.config.server.port,
        binding: boot.app_context.config.server.binding.clone(),
    };
    boot::start::<App>(boot, serve, true).await
}
