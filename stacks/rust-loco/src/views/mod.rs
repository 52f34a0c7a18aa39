pub mod bench;
pub mod home;
pub mod items;
