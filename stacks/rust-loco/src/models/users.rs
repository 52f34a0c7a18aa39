use sea_orm::{QueryFilter, entity::prelude::*};
use serde::Serialize;

pub use super::_entities::users::{self, ActiveModel, Column, Entity, Model};

#[async_trait::async_trait]
impl ActiveModelBehavior for ActiveModel {}

/// A `$2b$` cost-10 hash of a password no account has: an unknown email is
/// checked against it, so that it costs the same bcrypt run as a known one
/// and neither the answer nor its timing says whether the account exists.
const DUMMY_HASH: &str = "$2b$10$.e8Lw2Gn.da0mHQIjiVq3O3v2NFAvDVUHuI7NCgkmAfGW0TLeHGEa";

/// The columns a signed-in page shows: the hash is not read.
#[derive(Debug, Clone, DerivePartialModel, Serialize)]
#[sea_orm(entity = "Entity")]
pub struct Account {
    pub id: i64,
    pub email: String,
}

/// bcrypt's verification, on tokio's blocking pool: tens of milliseconds
/// of CPU that must not hold an async worker thread.
async fn bcrypt_verify(password: String, hash: String) -> bool {
    tokio::task::spawn_blocking(move || bcrypt::verify(password, &hash).unwrap_or(false))
        .await
        .unwrap_or(false)
}

impl Model {
    /// The account with this email and password: one lookup by email, then
    /// exactly one bcrypt verification whether or not the email is known.
    pub async fn authenticate<C: ConnectionTrait>(
        db: &C,
        email: &str,
        password: &str,
    ) -> Result<Option<Account>, DbErr> {
        let user = Entity::find().filter(Column::Email.eq(email)).one(db).await?;
        let Some(user) = user else {
            bcrypt_verify(password.to_owned(), DUMMY_HASH.to_owned()).await;
            return Ok(None);
        };
        if bcrypt_verify(password.to_owned(), user.password_hash).await {
            Ok(Some(Account { id: user.id, email: user.email }))
        } else {
            Ok(None)
        }
    }

    /// The account of a session, by id (the second of a signed-in request's
    /// two reads).
    pub async fn account<C: ConnectionTrait>(db: &C, id: i64) -> Result<Option<Account>, DbErr> {
        Entity::find_by_id(id).into_partial_model::<Account>().one(db).await
    }
}
