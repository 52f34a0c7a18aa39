use sea_orm::{QueryOrder, QuerySelect, entity::prelude::*};
use serde::Serialize;

pub use super::_entities::items::{self, ActiveModel, Column, Entity, Model};

/// How many rows /items and /page list (docs/app.md).
pub const NEWEST: u64 = 20;

#[async_trait::async_trait]
impl ActiveModelBehavior for ActiveModel {}

/// The columns /items and /page show: `body` is never read.
#[derive(Debug, DerivePartialModel, Serialize)]
#[sea_orm(entity = "Entity")]
pub struct Summary {
    pub id: i64,
    pub title: String,
    pub created_at: i64,
}

impl Model {
    /// The newest items by id, newest first.
    pub async fn newest<C: ConnectionTrait>(db: &C) -> Result<Vec<Summary>, DbErr> {
        Entity::find()
            .order_by_desc(Column::Id)
            .limit(NEWEST)
            .into_partial_model::<Summary>()
            .all(db)
            .await
    }
}
