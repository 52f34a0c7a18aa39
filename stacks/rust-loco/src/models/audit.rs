use sea_orm::{Set, entity::prelude::*};

pub use super::_entities::audit::{self, ActiveModel, Column, Entity, Model};

#[async_trait::async_trait]
impl ActiveModelBehavior for ActiveModel {}

impl Model {
    /// Writes the audit row of a done job, inside the caller's transaction.
    pub async fn record<C: ConnectionTrait>(
        db: &C,
        order_id: i64,
        action: &str,
        at: i64,
    ) -> Result<(), DbErr> {
        Entity::insert(ActiveModel {
            order_id: Set(order_id),
            action: Set(action.to_owned()),
            at: Set(at),
            ..Default::default()
        })
        .exec(db)
        .await?;
        Ok(())
    }
}
