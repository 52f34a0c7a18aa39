pub mod app;
pub mod controllers;
pub mod initializers;
pub mod models;
pub mod views;
pub mod workers;
