pub use super::{bench_events::Entity as BenchEvents, items::Entity as Items};
