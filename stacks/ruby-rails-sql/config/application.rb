require_relative "boot"

# Only the parts of Rails this app uses (what `rails new --minimal` keeps):
# no mailer, jobs, cable, storage, text or sprockets. ActiveRecord stays
# without models: its connection pool, adapter and transactions carry the
# hand-written SQL (app/controllers/).
require "rails"
require "active_model/railtie"
require "active_record/railtie"
require "action_controller/railtie"
require "action_view/railtie"

Bundler.require(*Rails.groups)

module Stacklab
  class Application < Rails::Application
    config.load_defaults 6.1

    # The lab owns the schema (stacks/schema.sql): no schema dump, no
    # migrations, no pending-migration check.
    config.active_record.dump_schema_after_migration = false
    config.active_record.migration_error = false

    # Nothing in this app uses cookies or sessions, but Rails wants a key;
    # a per-boot key is enough (workers fork from one preloaded master).
    config.secret_key_base = ENV.fetch("SECRET_KEY_BASE") { SecureRandom.hex(64) }
  end
end
