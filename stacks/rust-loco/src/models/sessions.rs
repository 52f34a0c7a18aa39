use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use sea_orm::{QueryFilter, Set, entity::prelude::*};

pub use super::_entities::sessions::{self, ActiveModel, Column, Entity, Model};
use super::{now_ms, users};

#[async_trait::async_trait]
impl ActiveModelBehavior for ActiveModel {}

/// A session lasts 24 h from sign-in (docs/app.md).
pub const LIFETIME_MS: i64 = 86_400_000;

/// 256 bits from the operating system's random source, URL-safe base64 (43
/// characters, cookie-safe as is).
pub fn random_token() -> Result<String, DbErr> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| DbErr::Custom(format!("OS random source: {e}")))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

impl Model {
    /// Inserts a session for the user; answers its token.
    pub async fn start<C: ConnectionTrait>(db: &C, user_id: i64) -> Result<String, DbErr> {
        let token = random_token()?;
        let now = now_ms();
        Entity::insert(ActiveModel {
            token: Set(token.clone()),
            user_id: Set(user_id),
            created_at: Set(now),
            expires_at: Set(now + LIFETIME_MS),
            ..Default::default()
        })
        .exec(db)
        .await?;
        Ok(token)
    }

    /// The signed-in account of a session token: the session row (not
    /// expired), then its user. Two reads, every request, no cache: a
    /// session deleted or expired in the database is refused at once.
    pub async fn account<C: ConnectionTrait>(
        db: &C,
        token: &str,
    ) -> Result<Option<users::Account>, DbErr> {
        let session = Entity::find()
            .filter(Column::Token.eq(token))
            .filter(Column::ExpiresAt.gt(now_ms()))
            .one(db)
            .await?;
        match session {
            Some(s) => users::Model::account(db, s.user_id).await,
            None => Ok(None),
        }
    }

    /// Deletes the session with this token, if there is one.
    pub async fn end<C: ConnectionTrait>(db: &C, token: &str) -> Result<(), DbErr> {
        Entity::delete_many().filter(Column::Token.eq(token)).exec(db).await?;
        Ok(())
    }
}
