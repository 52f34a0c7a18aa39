use loco_rs::prelude::*;
use serde::Serialize;

/// What `sessions/sign_in.html` shows: the form's token, and the error line
/// after a refused sign-in (the same for an unknown email and a wrong
/// password, so the page says neither).
#[derive(Debug, Serialize)]
struct SignIn<'a> {
    csrf_token: &'a str,
    error: Option<&'static str>,
}

pub const INVALID: &str = "Invalid email or password.";

/// The sign-in page: `builder` carries the status and any cookie to set.
pub fn sign_in(
    builder: format::RenderBuilder,
    v: &impl ViewRenderer,
    csrf_token: &str,
    error: Option<&'static str>,
) -> Result<Response> {
    builder.view(v, "sessions/sign_in.html", SignIn { csrf_token, error })
}
