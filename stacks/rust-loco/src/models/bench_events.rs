use std::time::{SystemTime, UNIX_EPOCH};

use sea_orm::{
    PaginatorTrait, QueryOrder, QuerySelect, Set, SqliteTransactionMode, TransactionOptions,
    TransactionTrait,
    entity::prelude::*,
};
use serde::Serialize;

pub use super::_entities::bench_events::{self, ActiveModel, Column, Entity, Model};

/// 200 ASCII bytes, the payload of every /bench/write row (the same bytes as
/// rust-axum's, so the stacks store the same rows).
pub const PAYLOAD: &str = "stacklab-bench-write-payload-0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopq";
const _: () = assert!(PAYLOAD.len() == 200);

/// How many rows /bench/read lists (docs/app.md).
pub const LATEST: u64 = 20;

#[async_trait::async_trait]
impl ActiveModelBehavior for ActiveModel {}

/// A row as /bench/read lists it: no payload.
#[derive(Debug, DerivePartialModel, Serialize)]
#[sea_orm(entity = "Entity")]
pub struct Latest {
    pub id: i64,
    pub created_at: i64,
}

impl Model {
    /// Inserts one event inside `BEGIN IMMEDIATE`, so a writer takes the
    /// write lock up front and queues on busy_timeout instead of failing on a
    /// lock upgrade; returns its id.
    pub async fn record(db: &DatabaseConnection) -> Result<i64, DbErr> {
        let created_at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|e| DbErr::Custom(e.to_string()))?
            .as_millis() as i64;
        let txn = db
            .begin_with_options(TransactionOptions {
                sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
                ..Default::default()
            })
            .await?;
        let event = ActiveModel {
            payload: Set(PAYLOAD.to_owned()),
            created_at: Set(created_at),
            ..Default::default()
        };
        // `Entity::insert(..).exec` answers with last_insert_rowid: one
        // statement, where `ActiveModel::insert` would read the row back.
        let id = Entity::insert(event).exec(&txn).await?.last_insert_id;
        txn.commit().await?;
        Ok(id)
    }

    /// The row count and the newest rows by id, from one read transaction so
    /// both come from the same snapshot.
    pub async fn count_and_latest(db: &DatabaseConnection) -> Result<(u64, Vec<Latest>), DbErr> {
        let txn = db.begin().await?;
        let count = Entity::find().count(&txn).await?;
        let latest = Entity::find()
            .order_by_desc(Column::Id)
            .limit(LATEST)
            .into_partial_model::<Latest>()
            .all(&txn)
            .await?;
        txn.commit().await?;
        Ok((count, latest))
    }
}
