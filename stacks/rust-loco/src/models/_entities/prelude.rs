pub use super::{
    audit::Entity as Audit, bench_events::Entity as BenchEvents, items::Entity as Items,
    jobs::Entity as Jobs, orders::Entity as Orders, sessions::Entity as Sessions,
    users::Entity as Users,
};
