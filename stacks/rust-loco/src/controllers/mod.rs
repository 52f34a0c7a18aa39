pub mod bench;
pub mod fallback;
pub mod home;
pub mod items;
