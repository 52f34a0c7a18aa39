//! The signed-in routes (docs/app.md, "Signed-in routes: sessions, forms and a
//! job"): sign-in with bcrypt, a database session behind the `lab_session`
//! cookie, the account page and its JSON twin, orders and cancels queued for
//! the worker (`worker.rs`), every form guarded by `csrf.rs`.
//!
//! axum has no session store of its own; the session here is the `sessions`
//! row, looked up with its user on every request (no cache), and the cookie
//! carries its token as is. Cookies go through axum-extra's `CookieJar`.

use askama::Template;
use axum::{
    Json,
    extract::{Path, rejection::FormRejection},
    http::{HeaderMap, StatusCode, header},
    response::{Html, IntoResponse, Response},
    Form,
};
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::{AppError, Shared, csrf, not_found, now_ms, with_conn};

pub const SESSION_COOKIE: &str = "lab_session";
/// A session lives 24 h from sign-in (`expires_at`).
const SESSION_MS: i64 = 86_400_000;

/// bcrypt `$2b$`, cost 10, of a password no user has: an unknown email is
/// verified against it, so it costs what a known one does.
const DUMMY_HASH: &str = "$2b$10$A8/U2IVmxQyZ7Qv6Ol/A5uxL5up9MUnABqJw1l2DQhzja3jUlvDpC";

#[derive(Serialize)]
struct User {
    id: i64,
    email: String,
}

#[derive(Serialize)]
struct Order {
    id: i64,
    email: String,
    status: String,
    total_cents: i64,
    currency: String,
    placed_at: i64,
}

impl Order {
    /// Major units with exactly two decimals (14990 → "149.90").
    fn amount(&self) -> String {
        format!("{}.{:02}", self.total_cents / 100, self.total_cents % 100)
    }
}

#[derive(Template)]
#[template(path = "sign_in.html")]
struct SignInPage {
    csrf_token: String,
    failed: bool,
}

/// What the order form shows: empty, or what was sent when it was refused.
#[derive(Default)]
struct OrderFields {
    email: String,
    amount: String,
    currency: String,
}

#[derive(Template)]
#[template(path = "account.html")]
struct AccountPage {
    user: User,
    orders: Vec<Order>,
    csrf_token: String,
    form: OrderFields,
    /// The first invalid field of a refused order, and what to say.
    error: Option<(&'static str, &'static str)>,
}

#[derive(Deserialize)]
pub struct SignInForm {
    csrf_token: Option<String>,
    email: Option<String>,
    password: Option<String>,
}

#[derive(Deserialize)]
pub struct OrderForm {
    csrf_token: Option<String>,
    email: Option<String>,
    amount: Option<String>,
    currency: Option<String>,
}

#[derive(Deserialize)]
pub struct TokenForm {
    csrf_token: Option<String>,
}

fn text(status: StatusCode, body: &'static str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}

/// 303 with a Content-Type, as every answer has one.
fn see_other(location: &'static str) -> Response {
    (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, location), (header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "",
    )
        .into_response()
}

fn forbidden() -> Response {
    text(StatusCode::FORBIDDEN, "forbidden: missing or invalid csrf_token")
}

fn render(t: &impl Template) -> Result<String, AppError> {
    t.render().map_err(AppError::internal)
}

/// The token a form posted, if the body was a form at all.
fn posted_token<T>(form: &Result<Form<T>, FormRejection>, token: impl Fn(&T) -> &Option<String>) -> Option<&str> {
    form.as_ref().ok().and_then(|Form(f)| token(f).as_deref())
}

/// The session's user: the `sessions` row by token (not expired), then its
/// `users` row. Two reads, every request.
fn session_user(conn: &Connection, token: Option<&str>) -> rusqlite::Result<Option<User>> {
    let Some(token) = token else { return Ok(None) };
    let user_id: Option<i64> = conn
        .prepare_cached("SELECT user_id FROM sessions WHERE token = ?1 AND expires_at > ?2")?
        .query_row((token, now_ms()), |r| r.get(0))
        .optional()?;
    let Some(user_id) = user_id else { return Ok(None) };
    conn.prepare_cached("SELECT id, email FROM users WHERE id = ?1")?
        .query_row([user_id], |r| Ok(User { id: r.get(0)?, email: r.get(1)? }))
        .optional()
}

fn session_token(jar: &CookieJar) -> Option<String> {
    jar.get(SESSION_COOKIE).map(|c| c.value().to_owned())
}

fn newest_orders(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<Order>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, email, status, total_cents, currency, placed_at FROM orders WHERE user_id = ?1 ORDER BY id DESC LIMIT 20",
    )?;
    let rows = stmt.query_map([user_id], |r| {
        Ok(Order {
            id: r.get(0)?,
            email: r.get(1)?,
            status: r.get(2)?,
            total_cents: r.get(3)?,
            currency: r.get(4)?,
            placed_at: r.get(5)?,
        })
    })?;
    rows.collect()
}

/// The user and their newest orders from one read transaction.
fn account_data(conn: &mut Connection, token: Option<&str>) -> Result<Option<(User, Vec<Order>)>, AppError> {
    let tx = conn.transaction().map_err(AppError::unavailable)?;
    let Some(user) = session_user(&tx, token).map_err(AppError::unavailable)? else {
        return Ok(None);
    };
    let orders = newest_orders(&tx, user.id).map_err(AppError::unavailable)?;
    tx.commit().map_err(AppError::unavailable)?;
    Ok(Some((user, orders)))
}

fn sign_in_form(s: &Shared, jar: CookieJar, status: StatusCode, failed: bool) -> Result<Response, AppError> {
    let (jar, csrf_token) = s.csrf.issue(jar);
    let html = render(&SignInPage { csrf_token, failed })?;
    Ok((status, jar, Html(html)).into_response())
}

pub async fn sign_in_page(s: Shared, jar: CookieJar) -> Result<Response, AppError> {
    sign_in_form(&s, jar, StatusCode::OK, false)
}

pub async fn sign_in(
    s: Shared,
    jar: CookieJar,
    form: Result<Form<SignInForm>, FormRejection>,
) -> Result<Response, AppError> {
    if !s.csrf.verify(&jar, posted_token(&form, |f| &f.csrf_token)) {
        return Ok(forbidden());
    }
    let Ok(Form(SignInForm { email: Some(email), password: Some(password), .. })) = form else {
        return Ok(text(StatusCode::BAD_REQUEST, "bad request: email and password are required"));
    };

    let user: Option<(i64, String)> = with_conn(&s.pool, move |conn| {
        conn.prepare_cached("SELECT id, password_hash FROM users WHERE email = ?1")
            .and_then(|mut stmt| stmt.query_row([&email], |r| Ok((r.get(0)?, r.get(1)?))).optional())
            .map_err(AppError::unavailable)
    })
    .await?;

    // bcrypt is ~all CPU: it runs on the blocking pool, with no pooled
    // connection held meanwhile. An unknown email pays for one verification
    // too, against the dummy hash, so the answer's time says nothing.
    let (user_id, hash) = match user {
        Some((id, hash)) => (Some(id), hash),
        None => (None, DUMMY_HASH.to_owned()),
    };
    let matches = tokio::task::spawn_blocking(move || bcrypt::verify(password, &hash).unwrap_or(false))
        .await
        .map_err(AppError::internal)?;
    let Some(user_id) = user_id.filter(|_| matches) else {
        return sign_in_form(&s, jar, StatusCode::UNPROCESSABLE_ENTITY, true);
    };

    let token = csrf::random_token();
    let row_token = token.clone();
    with_conn(&s.pool, move |conn| {
        let now = now_ms();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(AppError::unavailable)?;
        tx.prepare_cached("INSERT INTO sessions (token, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut stmt| stmt.execute((&row_token, user_id, now, now + SESSION_MS)))
            .map_err(AppError::unavailable)?;
        tx.commit().map_err(AppError::unavailable)
    })
    .await?;
    let cookie = Cookie::build((SESSION_COOKIE, token)).path("/").http_only(true).same_site(SameSite::Lax);
    Ok((jar.add(cookie), see_other("/account")).into_response())
}

pub async fn sign_out(
    s: Shared,
    jar: CookieJar,
    form: Result<Form<TokenForm>, FormRejection>,
) -> Result<Response, AppError> {
    if !s.csrf.verify(&jar, posted_token(&form, |f| &f.csrf_token)) {
        return Ok(forbidden());
    }
    if let Some(token) = session_token(&jar) {
        with_conn(&s.pool, move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(AppError::unavailable)?;
            tx.prepare_cached("DELETE FROM sessions WHERE token = ?1")
                .and_then(|mut stmt| stmt.execute([&token]))
                .map_err(AppError::unavailable)?;
            tx.commit().map_err(AppError::unavailable)
        })
        .await?;
    }
    // An expired cookie of the same name and path: Max-Age=0 and an Expires in the past.
    let removal = Cookie::build(SESSION_COOKIE).path("/").http_only(true).same_site(SameSite::Lax);
    Ok((jar.remove(removal), see_other("/sign_in")).into_response())
}

/// Whether the request's Accept names `application/json`.
fn wants_json(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|range| range.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json"))
}

pub async fn account(s: Shared, jar: CookieJar, headers: HeaderMap) -> Result<Response, AppError> {
    let json = wants_json(&headers);
    let token = session_token(&jar);
    let Some((user, orders)) = with_conn(&s.pool, move |conn| account_data(conn, token.as_deref())).await? else {
        return Ok(if json {
            #[derive(Serialize)]
            struct Unauthorized {
                error: &'static str,
            }
            (StatusCode::UNAUTHORIZED, Json(Unauthorized { error: "unauthorized" })).into_response()
        } else {
            see_other("/sign_in")
        });
    };
    let (jar, csrf_token) = s.csrf.issue(jar);
    if json {
        #[derive(Serialize)]
        struct Account {
            user: User,
            orders: Vec<Order>,
            csrf_token: String,
        }
        return Ok((jar, Json(Account { user, orders, csrf_token })).into_response());
    }
    let html = render(&AccountPage { user, orders, csrf_token, form: OrderFields::default(), error: None })?;
    Ok((jar, Html(html)).into_response())
}

/// `^[0-9]{1,7}(\.[0-9]{1,2})?$`, above zero, parsed as text into minor units.
fn parse_amount(s: &str) -> Option<i64> {
    let digits = |p: &str, max: usize| !p.is_empty() && p.len() <= max && p.bytes().all(|b| b.is_ascii_digit());
    let (units, fraction) = match s.split_once('.') {
        Some((u, f)) => (u, Some(f)),
        None => (s, None),
    };
    if !digits(units, 7) {
        return None;
    }
    let mut cents = units.parse::<i64>().ok()? * 100;
    if let Some(f) = fraction {
        if !digits(f, 2) {
            return None;
        }
        let v = f.parse::<i64>().ok()?;
        cents += if f.len() == 1 { v * 10 } else { v };
    }
    (cents > 0).then_some(cents)
}

/// `^[^@\s]+@[^@\s]+\.[^@\s]+$` and at most 254 bytes (`\s` as RE2's:
/// space, \t, \n, \f, \r, which is `is_ascii_whitespace`).
fn valid_email(s: &str) -> bool {
    if s.len() > 254 || s.bytes().any(|b| b.is_ascii_whitespace()) {
        return false;
    }
    let Some((local, domain)) = s.split_once('@') else { return false };
    !local.is_empty()
        && !domain.contains('@')
        && domain.char_indices().any(|(i, c)| c == '.' && i > 0 && i + 1 < domain.len())
}

fn valid_currency(s: &str) -> bool {
    s.len() == 3 && s.bytes().all(|b| b.is_ascii_uppercase())
}

/// A valid order's fields, or the first invalid field and its message.
fn validate(f: &OrderForm) -> Result<(String, i64, String), (&'static str, &'static str)> {
    let email = f.email.as_deref().filter(|e| valid_email(e)).ok_or(("email", "Invalid email."))?;
    let cents = f
        .amount
        .as_deref()
        .and_then(parse_amount)
        .ok_or(("amount", "Invalid amount."))?;
    let currency = f
        .currency
        .as_deref()
        .filter(|c| valid_currency(c))
        .ok_or(("currency", "Invalid currency."))?;
    Ok((email.to_owned(), cents, currency.to_owned()))
}

enum Placed {
    NoSession,
    Invalid(User, Vec<Order>),
    Done,
}

pub async fn place_order(
    s: Shared,
    jar: CookieJar,
    form: Result<Form<OrderForm>, FormRejection>,
) -> Result<Response, AppError> {
    if !s.csrf.verify(&jar, posted_token(&form, |f| &f.csrf_token)) {
        return Ok(forbidden());
    }
    let Ok(Form(form)) = form else { return Ok(forbidden()) };
    let checked = validate(&form);
    let token = session_token(&jar);
    let valid = checked.clone().ok();
    let placed = with_conn(&s.pool, move |conn| {
        let Some(valid) = valid else {
            // Refused: the account page again, read in one snapshot.
            return Ok(match account_data(conn, token.as_deref())? {
                Some((user, orders)) => Placed::Invalid(user, orders),
                None => Placed::NoSession,
            });
        };
        let Some(user) = session_user(conn, token.as_deref()).map_err(AppError::unavailable)? else {
            return Ok(Placed::NoSession);
        };
        let (email, cents, currency) = valid;
        let now = now_ms();
        // The order and its job commit together or not at all.
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(AppError::unavailable)?;
        tx.prepare_cached(
            "INSERT INTO orders (user_id, email, status, total_cents, currency, placed_at) VALUES (?1, ?2, 'PENDING', ?3, ?4, ?5)",
        )
        .and_then(|mut stmt| stmt.execute((user.id, &email, cents, &currency, now)))
        .map_err(AppError::unavailable)?;
        let order_id = tx.last_insert_rowid();
        tx.prepare_cached("INSERT INTO jobs (order_id, action, created_at) VALUES (?1, 'placed', ?2)")
            .and_then(|mut stmt| stmt.execute((order_id, now)))
            .map_err(AppError::unavailable)?;
        tx.commit().map_err(AppError::unavailable)?;
        Ok(Placed::Done)
    })
    .await?;
    match placed {
        Placed::NoSession => Ok(see_other("/sign_in")),
        Placed::Done => Ok(see_other("/account")),
        Placed::Invalid(user, orders) => {
            let error = checked.err();
            let (jar, csrf_token) = s.csrf.issue(jar);
            let fields = OrderFields {
                email: form.email.unwrap_or_default(),
                amount: form.amount.unwrap_or_default(),
                currency: form.currency.unwrap_or_default(),
            };
            let html = render(&AccountPage { user, orders, csrf_token, form: fields, error })?;
            Ok((StatusCode::UNPROCESSABLE_ENTITY, jar, Html(html)).into_response())
        }
    }
}

enum Cancelled {
    NoSession,
    NotFound,
    NotPending,
    Done,
}

pub async fn cancel_order(
    s: Shared,
    jar: CookieJar,
    Path(id): Path<String>,
    form: Result<Form<TokenForm>, FormRejection>,
) -> Result<Response, AppError> {
    if !s.csrf.verify(&jar, posted_token(&form, |f| &f.csrf_token)) {
        return Ok(forbidden());
    }
    // A positive integer, digits only; anything else is no order (404, after the session).
    let order_id = Some(&id)
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|v| v.parse::<i64>().ok())
        .filter(|v| *v > 0);
    let token = session_token(&jar);
    let outcome = with_conn(&s.pool, move |conn| {
        let Some(user) = session_user(conn, token.as_deref()).map_err(AppError::unavailable)? else {
            return Ok(Cancelled::NoSession);
        };
        let Some(order_id) = order_id else { return Ok(Cancelled::NotFound) };
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(AppError::unavailable)?;
        // Another user's order reads as no order at all.
        let status: Option<String> = tx
            .prepare_cached("SELECT status FROM orders WHERE id = ?1 AND user_id = ?2")
            .and_then(|mut stmt| stmt.query_row((order_id, user.id), |r| r.get(0)).optional())
            .map_err(AppError::unavailable)?;
        match status.as_deref() {
            None => return Ok(Cancelled::NotFound),
            Some("PENDING") => {}
            Some(_) => return Ok(Cancelled::NotPending),
        }
        let now = now_ms();
        tx.prepare_cached("UPDATE orders SET status = 'CANCELLED' WHERE id = ?1")
            .and_then(|mut stmt| stmt.execute([order_id]))
            .map_err(AppError::unavailable)?;
        tx.prepare_cached("INSERT INTO jobs (order_id, action, created_at) VALUES (?1, 'cancelled', ?2)")
            .and_then(|mut stmt| stmt.execute((order_id, now)))
            .map_err(AppError::unavailable)?;
        tx.commit().map_err(AppError::unavailable)?;
        Ok(Cancelled::Done)
    })
    .await?;
    Ok(match outcome {
        Cancelled::NoSession => see_other("/sign_in"),
        Cancelled::NotFound => not_found().await.into_response(),
        Cancelled::NotPending => text(StatusCode::CONFLICT, "conflict: the order is not pending"),
        Cancelled::Done => see_other("/account"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_exact() {
        for (s, c) in [("149.90", 14990), ("149.9", 14990), ("149", 14900), ("0.01", 1), ("9999999.99", 999_999_999)] {
            assert_eq!(parse_amount(s), Some(c), "{s}");
        }
        for s in ["0", "0.00", "149.901", "-1", "1e2", "12,50", " 1", "1.", ".5", "", "12345678", "1.2.3", "+1"] {
            assert_eq!(parse_amount(s), None, "{s:?}");
        }
        let o = |c| Order { id: 1, email: String::new(), status: String::new(), total_cents: c, currency: String::new(), placed_at: 0 };
        assert_eq!(o(14990).amount(), "149.90");
        assert_eq!(o(5).amount(), "0.05");
        assert_eq!(o(100).amount(), "1.00");
    }

    #[test]
    fn emails_and_currencies() {
        for e in ["user1@lab.example", "a@b.c", "buyer+x@shop.example"] {
            assert!(valid_email(e), "{e}");
        }
        for e in ["", "a@b", "@b.c", "a@.c", "a@b.", "a@@b.c", "a@b@c.d", "a b@c.d", "a@b.c ", "nope"] {
            assert!(!valid_email(e), "{e:?}");
        }
        assert!(!valid_email(&format!("{}@b.cd", "a".repeat(250))));
        assert!(valid_currency("EUR"));
        for c in ["eur", "EU", "EURO", "E1R", ""] {
            assert!(!valid_currency(c), "{c:?}");
        }
    }
}
