//! `/account` as HTML (`account/show.html`) and as JSON. Struct fields give
//! the JSON key order docs/app.md asks for.
use loco_rs::prelude::*;
use serde::Serialize;

use crate::models::{
    orders::{self, format_amount},
    users::Account,
};

/// An order as the page lists it: the amount already as text.
#[derive(Debug, Serialize)]
struct OrderLine<'a> {
    id: i64,
    status: &'a str,
    amount: String,
    currency: &'a str,
}

/// The order form's values after a refusal, shown again.
#[derive(Debug, Default, Serialize)]
pub struct OrderForm<'a> {
    pub email: &'a str,
    pub amount: &'a str,
    pub currency: &'a str,
}

#[derive(Debug, Serialize)]
struct Page<'a> {
    user: &'a Account,
    orders: Vec<OrderLine<'a>>,
    csrf_token: &'a str,
    error_field: Option<&'static str>,
    form: OrderForm<'a>,
}

/// The account page; after a refused order, `error_field` names the first
/// invalid field and `form` holds what was sent. `builder` carries the
/// status and any cookie to set.
pub fn page(
    builder: format::RenderBuilder,
    v: &impl ViewRenderer,
    user: &Account,
    orders: &[orders::Model],
    csrf_token: &str,
    error_field: Option<&'static str>,
    form: OrderForm<'_>,
) -> Result<Response> {
    let orders = orders
        .iter()
        .map(|o| OrderLine {
            id: o.id,
            status: &o.status,
            amount: format_amount(o.total_cents),
            currency: &o.currency,
        })
        .collect();
    builder.view(v, "account/show.html", Page { user, orders, csrf_token, error_field, form })
}

#[derive(Debug, Serialize)]
struct Order<'a> {
    id: i64,
    email: &'a str,
    status: &'a str,
    total_cents: i64,
    currency: &'a str,
    placed_at: i64,
}

#[derive(Debug, Serialize)]
struct AccountJson<'a> {
    user: &'a Account,
    orders: Vec<Order<'a>>,
    csrf_token: &'a str,
}

/// The JSON twin of the page.
pub fn json(
    builder: format::RenderBuilder,
    user: &Account,
    orders: &[orders::Model],
    csrf_token: &str,
) -> Result<Response> {
    let orders = orders
        .iter()
        .map(|o| Order {
            id: o.id,
            email: &o.email,
            status: &o.status,
            total_cents: o.total_cents,
            currency: &o.currency,
            placed_at: o.placed_at,
        })
        .collect();
    builder.json(AccountJson { user, orders, csrf_token })
}

#[derive(Debug, Serialize)]
pub struct Unauthorized {
    pub error: &'static str,
}
