//! The pragma values of one pooled connection, for /bench/pragmas.
use std::sync::Arc;

use sea_orm::{
    sqlx::{self, sqlite::SqliteConnection},
    DatabaseConnection, DbErr, RuntimeErr,
};
use serde::Serialize;

/// Field order is the JSON key order docs/app.md gives, then the connection.
#[derive(Debug, Serialize)]
pub struct Pragmas {
    pub journal_mode: String,
    pub synchronous: i64,
    pub busy_timeout: i64,
    pub cache_size: i64,
    pub mmap_size: i64,
    pub journal_size_limit: i64,
    pub foreign_keys: i64,
    pub connection: String,
}

fn sqlx_err(e: sqlx::Error) -> DbErr {
    DbErr::Conn(RuntimeErr::SqlxError(Arc::new(e)))
}

async fn int(conn: &mut SqliteConnection, sql: &'static str) -> Result<i64, DbErr> {
    sqlx::query_scalar(sql).fetch_one(conn).await.map_err(sqlx_err)
}

impl Pragmas {
    /// Reads all seven on one connection of the pool under SeaORM, taken
    /// from sqlx directly: SeaORM hides which connection a statement ran on,
    /// and the connection's name is its SQLite handle (sqlite3_open_v2
    /// allocated it when sqlx opened the connection). (`mmap_size` has no
    /// table-valued `pragma_` function, so one SELECT cannot read them all.)
    pub async fn of_one_connection(db: &DatabaseConnection) -> Result<Self, DbErr> {
        let mut conn = db.get_sqlite_connection_pool().acquire().await.map_err(sqlx_err)?;
        let connection = format!("{:p}", conn.lock_handle().await.map_err(sqlx_err)?.as_raw_handle());
        let c: &mut SqliteConnection = &mut conn;
        Ok(Self {
            journal_mode: sqlx::query_scalar("PRAGMA journal_mode").fetch_one(&mut *c).await.map_err(sqlx_err)?,
            synchronous: int(c, "PRAGMA synchronous").await?,
            busy_timeout: int(c, "PRAGMA busy_timeout").await?,
            cache_size: int(c, "PRAGMA cache_size").await?,
            mmap_size: int(c, "PRAGMA mmap_size").await?,
            journal_size_limit: int(c, "PRAGMA journal_size_limit").await?,
            foreign_keys: int(c, "PRAGMA foreign_keys").await?,
            connection,
        })
    }
}
