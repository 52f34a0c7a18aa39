//! CSRF protection: Loco ships none (its auth is JWT, for APIs), so this is
//! the signed double-submit cookie. A client gets a random `lab_csrf` cookie
//! the first time a page with a form is rendered for it; every form's
//! `csrf_token` is HMAC-SHA256(process key, that cookie). A POST is let
//! through only if its `csrf_token` is the HMAC of the `lab_csrf` cookie it
//! came with: a token from another client's page does not match this
//! client's cookie, and without the key nobody can make a token for a
//! cookie they planted. The token stays valid as long as the cookie does
//! (sign-in does not rotate it), so a client may repeat a POST with the same
//! cookies and token.
use async_trait::async_trait;
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use hmac::{Hmac, Mac};
use loco_rs::{
    Error, Result,
    app::{AppContext, Initializer},
    prelude::cookie::{Cookie, CookieJar, SameSite},
};
use sha2::Sha256;

/// The cookie that ties tokens to a client.
pub const COOKIE: &str = "lab_csrf";

/// The HMAC, keyed at start with 256 bits from the OS random source, held
/// only in memory (never written, never logged): a token from before a
/// restart is refused after it, and the client gets a new one with its next
/// page.
#[derive(Clone)]
pub struct Csrf {
    mac: Hmac<Sha256>,
}

/// A token for a page, and the cookie to set if the client had none.
pub struct Issued {
    pub token: String,
    pub cookie: Option<Cookie<'static>>,
}

impl Csrf {
    fn new() -> Result<Self> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| Error::string(&format!("OS random source: {e}")))?;
        let mac = Hmac::<Sha256>::new_from_slice(&key).map_err(|e| Error::string(&e.to_string()))?;
        Ok(Self { mac })
    }

    fn sign(&self, seed: &str) -> Hmac<Sha256> {
        let mut mac = self.mac.clone();
        mac.update(seed.as_bytes());
        mac
    }

    /// The token for this client's forms; a new `lab_csrf` cookie when it
    /// has none (or an empty one).
    pub fn issue(&self, jar: &CookieJar) -> Result<Issued> {
        if let Some(seed) = jar.get(COOKIE).map(Cookie::value).filter(|v| !v.is_empty()) {
            return Ok(Issued { token: self.token_for(seed), cookie: None });
        }
        let seed = crate::models::sessions::random_token()?;
        let token = self.token_for(&seed);
        let cookie = Cookie::build((COOKIE, seed))
            .path("/")
            .http_only(true)
            .same_site(SameSite::Lax)
            .build();
        Ok(Issued { token, cookie: Some(cookie) })
    }

    fn token_for(&self, seed: &str) -> String {
        URL_SAFE_NO_PAD.encode(self.sign(seed).finalize().into_bytes())
    }

    /// Whether `token` was issued to the client with these cookies
    /// (compared in constant time).
    #[must_use]
    pub fn verify(&self, jar: &CookieJar, token: Option<&str>) -> bool {
        let (Some(seed), Some(token)) = (jar.get(COOKIE).map(Cookie::value), token) else {
            return false;
        };
        if seed.is_empty() {
            return false;
        }
        let Ok(tag) = URL_SAFE_NO_PAD.decode(token) else { return false };
        self.sign(seed).verify_slice(&tag).is_ok()
    }
}

pub struct CsrfInitializer;

#[async_trait]
impl Initializer for CsrfInitializer {
    fn name(&self) -> String {
        "csrf".to_string()
    }

    async fn before_run(&self, ctx: &AppContext) -> Result<()> {
        ctx.shared_store.insert(Csrf::new()?);
        Ok(())
    }
}
