use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct MessageResponse {
    pub message: &'static str,
}

impl MessageResponse {
    #[must_use]
    pub fn hello() -> Self {
        Self { message: "Hello, World!" }
    }
}
