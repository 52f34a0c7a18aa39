pub mod account;
pub mod bench;
pub mod fallback;
pub mod home;
pub mod items;
pub mod sessions;
pub mod signed_in;
