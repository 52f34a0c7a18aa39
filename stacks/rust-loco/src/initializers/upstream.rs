use std::{sync::Arc, time::Duration};

use async_trait::async_trait;
use loco_rs::{
    Error, Result,
    app::{AppContext, Initializer},
};
use serde::Deserialize;

/// `settings:` in config/production.yaml.
#[derive(Debug, Deserialize)]
pub struct Settings {
    pub upstream_url: String,
}

/// The one HTTP client every /bench/upstream call shares (reqwest keeps its
/// connections alive in a pool), kept in Loco's shared store.
#[derive(Clone)]
pub struct Upstream {
    client: reqwest::Client,
    delay_url: Arc<str>,
}

impl Upstream {
    /// One GET of `/delay?ms=100`; the body is read to the end so the
    /// connection goes back to the pool. Answers the upstream's status.
    pub async fn delay(&self) -> std::result::Result<u16, reqwest::Error> {
        let resp = self.client.get(&*self.delay_url).send().await?.error_for_status()?;
        let status = resp.status().as_u16();
        resp.bytes().await?;
        Ok(status)
    }
}

pub struct UpstreamInitializer;

#[async_trait]
impl Initializer for UpstreamInitializer {
    fn name(&self) -> String {
        "upstream".to_string()
    }

    async fn before_run(&self, ctx: &AppContext) -> Result<()> {
        let Settings { upstream_url } = ctx.config.settings()?;
        let client = reqwest::Client::builder()
            .pool_idle_timeout(Duration::from_secs(90))
            .build()
            .map_err(|e| Error::string(&format!("upstream client: {e}")))?;
        ctx.shared_store.insert(Upstream {
            client,
            delay_url: format!("{}/delay?ms=100", upstream_url.trim_end_matches('/')).into(),
        });
        Ok(())
    }
}
