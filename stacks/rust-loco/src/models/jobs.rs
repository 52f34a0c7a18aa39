use sea_orm::{
    QueryOrder, Set, SqliteTransactionMode, TransactionOptions, TransactionTrait,
    entity::prelude::*,
};

pub use super::_entities::jobs::{self, ActiveModel, Column, Entity, Model};
use super::{audit, now_ms};

#[async_trait::async_trait]
impl ActiveModelBehavior for ActiveModel {}

impl Model {
    /// Adds a job for the order, inside the caller's transaction.
    pub async fn enqueue<C: ConnectionTrait>(
        db: &C,
        order_id: i64,
        action: &str,
        now: i64,
    ) -> Result<(), DbErr> {
        Entity::insert(ActiveModel {
            order_id: Set(order_id),
            action: Set(action.to_owned()),
            created_at: Set(now),
            ..Default::default()
        })
        .exec(db)
        .await?;
        Ok(())
    }

    /// Does the lowest-id job, if any: its `audit` row written and the job
    /// deleted in one `BEGIN IMMEDIATE` transaction, so a job is done
    /// exactly once. A plain read first, so an idle queue costs no write
    /// lock. Answers whether there was a job.
    pub async fn work_next(db: &DatabaseConnection) -> Result<bool, DbErr> {
        if Entity::find().order_by_asc(Column::Id).one(db).await?.is_none() {
            return Ok(false);
        }
        let txn = db
            .begin_with_options(TransactionOptions {
                sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
                ..Default::default()
            })
            .await?;
        let Some(job) = Entity::find().order_by_asc(Column::Id).one(&txn).await? else {
            txn.rollback().await?;
            return Ok(false);
        };
        audit::Model::record(&txn, job.order_id, &job.action, now_ms()).await?;
        Entity::delete_by_id(job.id).exec(&txn).await?;
        txn.commit().await?;
        Ok(true)
    }
}
