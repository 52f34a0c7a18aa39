//! CSRF protection: a signed double-submit cookie with masked tokens (the
//! scheme Django ships). axum has no CSRF layer of its own.
//!
//! - The `lab_csrf` cookie holds 256 random bits, set once per client (by the
//!   first page with a form) and never rotated, so a token stays valid for as
//!   long as the client sends the same cookie: across sign-in and sign-out,
//!   and for the lab's load generator, which repeats one request with one
//!   set of cookies.
//! - The form's `csrf_token` is HMAC-SHA256(process key, cookie value),
//!   XOR-masked with 32 fresh random bytes on every render (nonce || masked,
//!   base64url), so no two pages carry the same bytes (BREACH) while every
//!   token issued for that cookie verifies.
//! - The key is 256 bits from the OS random source at process start, held in
//!   memory only: a restart invalidates outstanding tokens, as it should.
//!
//! A token from another client's page fails: its HMAC is over another
//! cookie, and the key is not known outside the process.

use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

pub const COOKIE: &str = "lab_csrf";
const LEN: usize = 32;

type HmacSha256 = Hmac<Sha256>;

pub struct Csrf {
    key: [u8; LEN],
}

/// 256 bits from the OS random source (getrandom(2)), base64url (43 characters).
pub fn random_token() -> String {
    URL_SAFE_NO_PAD.encode(random_bytes())
}

fn random_bytes() -> [u8; LEN] {
    let mut b = [0u8; LEN];
    // No fallback: without the OS random source the app must not run.
    getrandom::fill(&mut b).expect("the OS random source failed");
    b
}

impl Csrf {
    pub fn new() -> Self {
        Csrf { key: random_bytes() }
    }

    fn mac(&self, seed: &str) -> HmacSha256 {
        let mut mac = <HmacSha256 as KeyInit>::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(seed.as_bytes());
        mac
    }

    /// A fresh masked token for the client whose `lab_csrf` cookie is `seed`.
    pub fn token(&self, seed: &str) -> String {
        let expected = self.mac(seed).finalize().into_bytes();
        let nonce = random_bytes();
        let mut out = [0u8; 2 * LEN];
        out[..LEN].copy_from_slice(&nonce);
        for i in 0..LEN {
            out[LEN + i] = nonce[i] ^ expected[i];
        }
        URL_SAFE_NO_PAD.encode(out)
    }

    /// Whether `token` was issued to the client that sends `jar` (constant
    /// time in the comparison of the MAC).
    pub fn verify(&self, jar: &CookieJar, token: Option<&str>) -> bool {
        let (Some(seed), Some(token)) = (seed(jar), token) else {
            return false;
        };
        let Ok(raw) = URL_SAFE_NO_PAD.decode(token) else {
            return false;
        };
        if raw.len() != 2 * LEN {
            return false;
        }
        let unmasked: Vec<u8> = raw[..LEN].iter().zip(&raw[LEN..]).map(|(n, m)| n ^ m).collect();
        self.mac(&seed).verify_slice(&unmasked).is_ok()
    }

    /// The client's seed and a token for it; a client without a well-formed
    /// `lab_csrf` cookie is given one (in the returned jar).
    pub fn issue(&self, jar: CookieJar) -> (CookieJar, String) {
        match seed(&jar) {
            Some(seed) => {
                let token = self.token(&seed);
                (jar, token)
            }
            None => {
                let seed = random_token();
                let token = self.token(&seed);
                let cookie = Cookie::build((COOKIE, seed)).path("/").http_only(true).same_site(SameSite::Lax);
                (jar.add(cookie), token)
            }
        }
    }
}

/// The `lab_csrf` cookie's value if it has the shape this process issues
/// (43 base64url characters).
fn seed(jar: &CookieJar) -> Option<String> {
    let value = jar.get(COOKIE)?.value();
    let ok = value.len() == 43 && value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    ok.then(|| value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jar_with(seed: &str) -> CookieJar {
        CookieJar::new().add(Cookie::new(COOKIE, seed.to_owned()))
    }

    #[test]
    fn tokens_verify_for_their_cookie_only() {
        let csrf = Csrf::new();
        let (jar, t1) = csrf.issue(CookieJar::new());
        let t2 = csrf.token(&seed(&jar).unwrap());
        assert_ne!(t1, t2, "every render masks anew");
        assert!(csrf.verify(&jar, Some(&t1)));
        assert!(csrf.verify(&jar, Some(&t2)));
        let other = jar_with(&random_token());
        assert!(!csrf.verify(&other, Some(&t1)));
        assert!(!csrf.verify(&jar, None));
        assert!(!csrf.verify(&CookieJar::new(), Some(&t1)));
        assert!(!csrf.verify(&jar, Some("not-a-token")));
        // Another process (another key) issued it: refused.
        assert!(!Csrf::new().verify(&jar, Some(&t1)));
    }
}
