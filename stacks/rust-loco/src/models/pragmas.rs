//! The pragma values of one pooled connection, for /bench/pragmas.
use sea_orm::{
    ConnectionTrait, DatabaseConnection, DbBackend, DbErr, Statement, TransactionTrait,
    TryGetable,
};
use serde::Serialize;

/// Field order is the JSON key order APP.md gives.
#[derive(Debug, Serialize)]
pub struct Pragmas {
    pub journal_mode: String,
    pub synchronous: i64,
    pub busy_timeout: i64,
    pub cache_size: i64,
    pub mmap_size: i64,
    pub journal_size_limit: i64,
    pub foreign_keys: i64,
}

async fn pragma<T: TryGetable, C: ConnectionTrait>(db: &C, name: &str) -> Result<T, DbErr> {
    db.query_one_raw(Statement::from_string(DbBackend::Sqlite, format!("PRAGMA {name}")))
        .await?
        .ok_or_else(|| DbErr::Custom(format!("PRAGMA {name} returned no row")))?
        .try_get_by_index(0)
}

impl Pragmas {
    /// Reads all seven on one connection: the pool would hand each statement
    /// outside a transaction its own connection. (`mmap_size` has no
    /// table-valued `pragma_` function, so one SELECT cannot read them all.)
    pub async fn of_one_connection(db: &DatabaseConnection) -> Result<Self, DbErr> {
        let txn = db.begin().await?;
        let p = Self {
            journal_mode: pragma(&txn, "journal_mode").await?,
            synchronous: pragma(&txn, "synchronous").await?,
            busy_timeout: pragma(&txn, "busy_timeout").await?,
            cache_size: pragma(&txn, "cache_size").await?,
            mmap_size: pragma(&txn, "mmap_size").await?,
            journal_size_limit: pragma(&txn, "journal_size_limit").await?,
            foreign_keys: pragma(&txn, "foreign_keys").await?,
        };
        txn.commit().await?;
        Ok(p)
    }
}
