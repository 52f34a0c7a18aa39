//! The account page and the order forms (docs/app.md, "Signed-in routes").
use axum::http::StatusCode;
use loco_rs::prelude::{cookie::CookieJar, *};
use serde::Deserialize;

use super::signed_in::{TokenForm, current_account, forbidden, plain, see_other, with_cookie};
use crate::{
    initializers::csrf::Csrf,
    models::orders::{self, Cancel, NewOrder},
    views::{
        self,
        account::{OrderForm, Unauthorized},
    },
};

#[derive(Debug, Deserialize)]
pub struct OrderParams {
    pub csrf_token: Option<String>,
    pub email: Option<String>,
    pub amount: Option<String>,
    pub currency: Option<String>,
}

/// HTML, or JSON when the request asks for it (Loco's `Format`: its
/// `Content-Type`, else its `Accept`). Not signed in: 303 to the form, or
/// 401 for JSON.
#[debug_handler]
async fn show(
    ViewEngine(v): ViewEngine<TeraView>,
    State(ctx): State<AppContext>,
    SharedStore(csrf): SharedStore<Csrf>,
    Format(respond_to): Format,
    jar: CookieJar,
) -> Result<Response> {
    let json = matches!(respond_to, RespondTo::Json);
    let Some(user) = current_account(&ctx.db, &jar).await? else {
        return if json {
            format::render()
                .status(StatusCode::UNAUTHORIZED)
                .json(Unauthorized { error: "unauthorized" })
        } else {
            see_other(format::render(), "/sign_in")
        };
    };
    let orders = orders::Model::newest_of(&ctx.db, user.id).await?;
    let issued = csrf.issue(&jar)?;
    let builder = with_cookie(format::render(), issued.cookie)?;
    if json {
        views::account::json(builder, &user, &orders, &issued.token)
    } else {
        views::account::page(builder, &v, &user, &orders, &issued.token, None, OrderForm::default())
    }
}

/// The token, the session, the fields (email, amount, currency), then the
/// order and its job in one write transaction.
#[debug_handler]
async fn create(
    ViewEngine(v): ViewEngine<TeraView>,
    State(ctx): State<AppContext>,
    SharedStore(csrf): SharedStore<Csrf>,
    jar: CookieJar,
    Form(form): Form<OrderParams>,
) -> Result<Response> {
    if !csrf.verify(&jar, form.csrf_token.as_deref()) {
        return forbidden();
    }
    let Some(user) = current_account(&ctx.db, &jar).await? else {
        return see_other(format::render(), "/sign_in");
    };
    let (email, amount, currency) = (form.email.as_deref(), form.amount.as_deref(), form.currency.as_deref());
    match NewOrder::validate(email, amount, currency) {
        Ok(new) => {
            orders::Model::place(&ctx.db, user.id, new).await?;
            see_other(format::render(), "/account")
        }
        Err(field) => {
            let orders = orders::Model::newest_of(&ctx.db, user.id).await?;
            let issued = csrf.issue(&jar)?;
            let builder = with_cookie(format::render().status(StatusCode::UNPROCESSABLE_ENTITY), issued.cookie)?;
            let form = OrderForm {
                email: email.unwrap_or_default(),
                amount: amount.unwrap_or_default(),
                currency: currency.unwrap_or_default(),
            };
            views::account::page(builder, &v, &user, &orders, &issued.token, Some(field), form)
        }
    }
}

/// A positive integer id, else `None` (answered 404 like a missing order).
fn order_id(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok().filter(|id| *id > 0)
}

/// The token and the session as `create`; then the user's own PENDING
/// order (404 for another's or none, 409 if not PENDING).
#[debug_handler]
async fn cancel(
    State(ctx): State<AppContext>,
    SharedStore(csrf): SharedStore<Csrf>,
    jar: CookieJar,
    Path(id): Path<String>,
    Form(form): Form<TokenForm>,
) -> Result<Response> {
    if !csrf.verify(&jar, form.csrf_token.as_deref()) {
        return forbidden();
    }
    let Some(user) = current_account(&ctx.db, &jar).await? else {
        return see_other(format::render(), "/sign_in");
    };
    let Some(id) = order_id(&id) else {
        return plain(StatusCode::NOT_FOUND, "not found");
    };
    match orders::Model::cancel(&ctx.db, user.id, id).await? {
        Cancel::Done => see_other(format::render(), "/account"),
        Cancel::NotFound => plain(StatusCode::NOT_FOUND, "not found"),
        Cancel::NotPending => plain(StatusCode::CONFLICT, "order is not pending"),
    }
}

pub fn routes() -> Routes {
    Routes::new()
        .add("/account", get(show))
        .add("/orders", post(create))
        .add("/orders/{id}/cancel", post(cancel))
}
