//! SeaORM entities for the lab's tables (`stacks/schema.sql`), in the shape
//! `cargo loco db entities` writes them; hand-written here, since no
//! migration creates the tables this app reads. The foreign keys are the
//! schema's; no `Relation` is declared because no query here joins.

pub mod prelude;

pub mod audit;
pub mod bench_events;
pub mod items;
pub mod jobs;
pub mod orders;
pub mod sessions;
pub mod users;
