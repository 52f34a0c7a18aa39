//! SeaORM entities for the lab's tables (`stacks/schema.sql`), in the shape
//! `cargo loco db entities` writes them; hand-written here, since no
//! migration creates the tables this app reads.

pub mod prelude;

pub mod bench_events;
pub mod items;
