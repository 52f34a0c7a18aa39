pub mod _entities;
pub mod bench_events;
pub mod items;
pub mod pragmas;
