use sea_orm::{
    QueryFilter, QueryOrder, QuerySelect, Set, SqliteTransactionMode, TransactionOptions,
    TransactionTrait, entity::prelude::*, sea_query::Expr,
};

pub use super::_entities::orders::{self, ActiveModel, Column, Entity, Model};
use super::{jobs, now_ms};

#[async_trait::async_trait]
impl ActiveModelBehavior for ActiveModel {}

/// How many orders /account lists (docs/app.md).
pub const NEWEST: u64 = 20;

/// An order's total as text: major units with exactly two decimals (14990
/// → `149.90`, 5 → `0.05`), from the integer, never a float.
#[must_use]
pub fn format_amount(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// `^[0-9]{1,7}(\.[0-9]{1,2})?$` parsed as text into minor units (`149.9`
/// → 14990), above zero; anything else is `None`.
#[must_use]
pub fn parse_amount(s: &str) -> Option<i64> {
    let (major, minor) = match s.split_once('.') {
        Some((major, minor)) => (major, Some(minor)),
        None => (s, None),
    };
    let digits = |t: &str, max: usize| !t.is_empty() && t.len() <= max && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(major, 7) {
        return None;
    }
    let mut cents = major.parse::<i64>().ok()? * 100;
    if let Some(minor) = minor {
        if !digits(minor, 2) {
            return None;
        }
        let m = minor.parse::<i64>().ok()?;
        cents += if minor.len() == 1 { m * 10 } else { m };
    }
    (cents > 0).then_some(cents)
}

/// `^[^@\s]+@[^@\s]+\.[^@\s]+$`, at most 254 bytes.
#[must_use]
pub fn valid_email(s: &str) -> bool {
    if s.len() > 254 || s.chars().any(char::is_whitespace) {
        return false;
    }
    let Some((local, domain)) = s.split_once('@') else { return false };
    if local.is_empty() || domain.contains('@') {
        return false;
    }
    let d = domain.as_bytes();
    d.len() >= 3 && d[1..d.len() - 1].contains(&b'.')
}

/// `^[A-Z]{3}$`.
#[must_use]
pub fn valid_currency(s: &str) -> bool {
    s.len() == 3 && s.bytes().all(|b| b.is_ascii_uppercase())
}

/// A new order's fields, checked in docs/app.md's order.
#[derive(Debug)]
pub struct NewOrder {
    pub email: String,
    pub total_cents: i64,
    pub currency: String,
}

impl NewOrder {
    /// The order, or the name of the first invalid field of `email`,
    /// `amount`, `currency` (an absent field is invalid).
    pub fn validate(
        email: Option<&str>,
        amount: Option<&str>,
        currency: Option<&str>,
    ) -> Result<Self, &'static str> {
        let email = email.filter(|e| valid_email(e)).ok_or("email")?;
        let total_cents = amount.and_then(parse_amount).ok_or("amount")?;
        let currency = currency.filter(|c| valid_currency(c)).ok_or("currency")?;
        Ok(Self { email: email.to_owned(), total_cents, currency: currency.to_owned() })
    }
}

/// What cancelling an order came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Cancel {
    Done,
    /// No order with that id belongs to the user (missing or another's).
    NotFound,
    /// The order is not PENDING.
    NotPending,
}

/// `BEGIN IMMEDIATE`: the write lock up front (docs/app.md).
fn immediate() -> TransactionOptions {
    TransactionOptions {
        sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
        ..Default::default()
    }
}

impl Model {
    /// The user's newest orders by id, newest first.
    pub async fn newest_of<C: ConnectionTrait>(db: &C, user_id: i64) -> Result<Vec<Self>, DbErr> {
        Entity::find()
            .filter(Column::UserId.eq(user_id))
            .order_by_desc(Column::Id)
            .limit(NEWEST)
            .all(db)
            .await
    }

    /// Places a PENDING order and its `placed` job in one write transaction.
    pub async fn place(db: &DatabaseConnection, user_id: i64, new: NewOrder) -> Result<i64, DbErr> {
        let now = now_ms();
        let txn = db.begin_with_options(immediate()).await?;
        let id = Entity::insert(ActiveModel {
            user_id: Set(user_id),
            email: Set(new.email),
            status: Set("PENDING".to_owned()),
            total_cents: Set(new.total_cents),
            currency: Set(new.currency),
            placed_at: Set(now),
            ..Default::default()
        })
        .exec(&txn)
        .await?
        .last_insert_id;
        jobs::Model::enqueue(&txn, id, "placed", now).await?;
        txn.commit().await?;
        Ok(id)
    }

    /// Cancels the user's PENDING order and enqueues its `cancelled` job, in
    /// one write transaction; nothing is written otherwise.
    pub async fn cancel(db: &DatabaseConnection, user_id: i64, id: i64) -> Result<Cancel, DbErr> {
        let txn = db.begin_with_options(immediate()).await?;
        let order = Entity::find_by_id(id)
            .filter(Column::UserId.eq(user_id))
            .one(&txn)
            .await?;
        let outcome = match order {
            None => Cancel::NotFound,
            Some(o) if o.status != "PENDING" => Cancel::NotPending,
            Some(_) => {
                Entity::update_many()
                    .col_expr(Column::Status, Expr::value("CANCELLED"))
                    .filter(Column::Id.eq(id))
                    .exec(&txn)
                    .await?;
                jobs::Model::enqueue(&txn, id, "cancelled", now_ms()).await?;
                Cancel::Done
            }
        };
        if outcome == Cancel::Done {
            txn.commit().await?;
        } else {
            txn.rollback().await?;
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(parse_amount("149.90"), Some(14990));
        assert_eq!(parse_amount("149.9"), Some(14990));
        assert_eq!(parse_amount("149"), Some(14900));
        assert_eq!(parse_amount("0.01"), Some(1));
        assert_eq!(parse_amount("9999999.99"), Some(999_999_999));
        for bad in ["0", "0.00", "149.901", "-1", "1e2", "12,50", " 1", "", ".5", "5.", "12345678", "+1"] {
            assert_eq!(parse_amount(bad), None, "{bad:?}");
        }
        assert_eq!(format_amount(14990), "149.90");
        assert_eq!(format_amount(5), "0.05");
    }

    #[test]
    fn emails_and_currencies() {
        assert!(valid_email("user1@lab.example"));
        assert!(valid_email("a@b.c"));
        for bad in ["", "a@b", "@b.c", "a@.c", "a@b.", "a@@b.c", "a b@c.d", "a@b@c.d", "ab.c"] {
            assert!(!valid_email(bad), "{bad:?}");
        }
        assert!(valid_currency("EUR"));
        for bad in ["eur", "EU", "EURO", "E1R", ""] {
            assert!(!valid_currency(bad), "{bad:?}");
        }
    }
}
