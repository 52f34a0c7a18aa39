# The audit worker (app/workers/audit_worker.rb) runs as a thread in each
# process that serves requests. In Puma's cluster mode that is each worker,
# and config/puma.rb starts it in on_worker_boot, after the fork (a thread
# does not survive a fork, and the master serves nothing); in single mode
# the process that loads the app serves, and it starts here once the app
# has booted. Not under Puma (a console, a runner): no worker.
Rails.application.config.after_initialize do
  config = Puma.cli_config if defined?(Puma.cli_config)
  AuditWorker.start if config && config.options[:workers].to_i.zero?
end
