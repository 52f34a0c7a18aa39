//! What the signed-in controllers share: the session cookie, the session
//! check every signed-in request makes, and the plain answers (303, 403,
//! 404, 409) with the `Content-Type` docs/app.md asks of every answer.
use axum::http::{StatusCode, header};
use loco_rs::prelude::{
    cookie::{Cookie, CookieJar, SameSite},
    *,
};
use serde::Deserialize;

use crate::models::{sessions, users::Account};

/// The session cookie; it carries the `sessions` row's token as is.
pub const SESSION_COOKIE: &str = "lab_session";

/// The body of a form that holds only its CSRF token (sign-out, cancel).
#[derive(Debug, Deserialize)]
pub struct TokenForm {
    pub csrf_token: Option<String>,
}

/// `lab_session`: `Path=/`, `HttpOnly`, `SameSite=Lax`, a browser-session
/// cookie (the row's `expires_at` bounds it). No `Secure`: the lab speaks
/// plain HTTP; behind TLS it would be added.
#[must_use]
pub fn session_cookie(value: String) -> Cookie<'static> {
    Cookie::build((SESSION_COOKIE, value))
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .build()
}

/// The same cookie, expired (`Max-Age=0` and an `Expires` in the past).
#[must_use]
pub fn removed_session_cookie() -> Cookie<'static> {
    let mut c = session_cookie(String::new());
    c.make_removal();
    c
}

/// The signed-in account: the `lab_session` cookie's session row (not
/// expired) and its user, read from the database on every request.
pub async fn current_account(db: &DatabaseConnection, jar: &CookieJar) -> Result<Option<Account>> {
    match jar.get(SESSION_COOKIE).map(Cookie::value).filter(|t| !t.is_empty()) {
        Some(token) => Ok(sessions::Model::account(db, token).await?),
        None => Ok(None),
    }
}

/// Adds the cookie, if any, to the answer.
pub fn with_cookie(builder: format::RenderBuilder, cookie: Option<Cookie<'static>>) -> Result<format::RenderBuilder> {
    match cookie {
        Some(c) => builder.cookies(&[c]),
        None => Ok(builder),
    }
}

/// 303 to `to`. Loco's `redirect` answers 303 with an empty body and no
/// `Content-Type`; docs/app.md wants one on every answer.
pub fn see_other(builder: format::RenderBuilder, to: &str) -> Result<Response> {
    builder
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .redirect(to)
}

pub fn plain(status: StatusCode, body: &str) -> Result<Response> {
    format::render().status(status).text(body)
}

/// A POST whose `csrf_token` was not issued to this client.
pub fn forbidden() -> Result<Response> {
    plain(StatusCode::FORBIDDEN, "invalid CSRF token")
}
