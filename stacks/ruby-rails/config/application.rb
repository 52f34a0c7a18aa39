require_relative "boot"

# Only the parts of Rails this app uses (what `rails new --minimal` keeps):
# no mailer, jobs, cable, storage, text or sprockets.
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

    # The key of the encrypted session cookie (and of everything else Rails
    # signs): SECRET_KEY_BASE when given, else 64 random bytes from the OS
    # (SecureRandom) made at boot, never written anywhere. Puma's cluster
    # mode preloads the app in its master (config/puma.rb), so every worker
    # forks with the same key and reads every other worker's cookies; a
    # restart signs everyone out.
    config.secret_key_base = ENV.fetch("SECRET_KEY_BASE") { SecureRandom.hex(64) }

    # Rails' own session: the cookie store, encrypted and authenticated
    # (AES-256-GCM under secret_key_base), in the cookie lab_session
    # (docs/app.md), HttpOnly, SameSite=Lax, Path=/. It holds the sessions row's
    # token (app/controllers/concerns/authentication.rb) and Rails' CSRF
    # token, so a form's token stays good for as long as the client sends
    # the cookie it was given with it.
    config.session_store :cookie_store, key: "lab_session", httponly: true, same_site: :lax

    # Rails' CSRF protection (protect_from_forgery), its form field named as
    # docs/app.md names it (Rails' default is authenticity_token). A refusal is
    # answered 403 (app/controllers/concerns/csrf_protection.rb) and not
    # logged: the lab logs nothing per request.
    config.action_controller.request_forgery_protection_token = :csrf_token
    config.action_controller.log_warning_on_csrf_failure = false
  end
end
