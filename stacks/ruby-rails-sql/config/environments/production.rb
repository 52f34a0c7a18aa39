Rails.application.configure do
  config.cache_classes = true
  config.eager_load = true
  config.consider_all_requests_local = false
  config.action_controller.perform_caching = true
  config.public_file_server.enabled = false

  # The lab logs nothing per request: warn and above only, to stdout.
  config.log_level = :warn
  config.logger = ActiveSupport::Logger.new($stdout)
  config.log_formatter = ::Logger::Formatter.new
  config.active_support.report_deprecations = false if config.active_support.respond_to?(:report_deprecations=)
  config.active_support.deprecation = :silence

  config.i18n.fallbacks = true
  config.active_record.dump_schema_after_migration = false
end
