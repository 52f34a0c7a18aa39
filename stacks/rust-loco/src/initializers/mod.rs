pub mod csrf;
pub mod upstream;
pub mod view_engine;
