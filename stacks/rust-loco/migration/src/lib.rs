//! The migrator `loco new` generates, with no migrations in it: the lab owns
//! the schema (`stacks/schema.sql`) and seeds the file before the app starts,
//! so this app never creates or alters a table (`auto_migrate: false`).
pub use sea_orm_migration::prelude::*;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![]
    }
}
