//! Sign-in and sign-out (docs/app.md, "Signed-in routes").
use axum::http::StatusCode;
use loco_rs::prelude::{cookie::CookieJar, *};
use serde::Deserialize;

use super::signed_in::{
    SESSION_COOKIE, TokenForm, forbidden, session_cookie, plain, removed_session_cookie,
    see_other, with_cookie,
};
use crate::{
    initializers::csrf::Csrf,
    models::{sessions, users},
    views,
};

#[derive(Debug, Deserialize)]
pub struct SignInForm {
    pub csrf_token: Option<String>,
    pub email: Option<String>,
    pub password: Option<String>,
}

/// The form, signed in or not; sets `lab_csrf` for a client that has none.
#[debug_handler]
async fn new(
    ViewEngine(v): ViewEngine<TeraView>,
    SharedStore(csrf): SharedStore<Csrf>,
    jar: CookieJar,
) -> Result<Response> {
    let issued = csrf.issue(&jar)?;
    views::sessions::sign_in(with_cookie(format::render(), issued.cookie)?, &v, &issued.token, None)
}

/// The token, then both fields, then the account by email and bcrypt: a
/// session row and its cookie, or the form again with one error line for an
/// unknown email and a wrong password alike.
#[debug_handler]
async fn create(
    ViewEngine(v): ViewEngine<TeraView>,
    State(ctx): State<AppContext>,
    SharedStore(csrf): SharedStore<Csrf>,
    jar: CookieJar,
    Form(form): Form<SignInForm>,
) -> Result<Response> {
    if !csrf.verify(&jar, form.csrf_token.as_deref()) {
        return forbidden();
    }
    let (Some(email), Some(password)) = (form.email, form.password) else {
        return plain(StatusCode::BAD_REQUEST, "email and password are required");
    };
    match users::Model::authenticate(&ctx.db, &email, &password).await? {
        Some(account) => {
            let token = sessions::Model::start(&ctx.db, account.id).await?;
            see_other(format::render().cookies(&[session_cookie(token)])?, "/account")
        }
        None => {
            let issued = csrf.issue(&jar)?;
            let builder = with_cookie(format::render().status(StatusCode::UNPROCESSABLE_ENTITY), issued.cookie)?;
            views::sessions::sign_in(builder, &v, &issued.token, Some(views::sessions::INVALID))
        }
    }
}

/// Deletes the session's row (if any) and expires the cookie.
#[debug_handler]
async fn destroy(
    State(ctx): State<AppContext>,
    SharedStore(csrf): SharedStore<Csrf>,
    jar: CookieJar,
    Form(form): Form<TokenForm>,
) -> Result<Response> {
    if !csrf.verify(&jar, form.csrf_token.as_deref()) {
        return forbidden();
    }
    if let Some(token) = jar.get(SESSION_COOKIE) {
        sessions::Model::end(&ctx.db, token.value()).await?;
    }
    see_other(format::render().cookies(&[removed_session_cookie()])?, "/sign_in")
}

pub fn routes() -> Routes {
    Routes::new()
        .add("/sign_in", get(new).post(create))
        .add("/sign_out", post(destroy))
}
