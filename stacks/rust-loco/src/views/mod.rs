pub mod account;
pub mod bench;
pub mod home;
pub mod items;
pub mod sessions;
