# Puma for the CPUs given. Workers: WEB_CONCURRENCY, else one per CPU
# (LAB_CPUS, else the CPUs this process may run on). Threads per worker:
# RAILS_MAX_THREADS (Rails' default, 5), which also sizes the ActiveRecord
# pool (config/database.yml) and the upstream pool. One worker runs in
# single mode: a cluster of one only adds a master process.
require "etc"

# ENV[name] as a positive integer (default when unset), or exit with one line.
positive = lambda do |name, default|
  raw = ENV.fetch(name, "")
  next default if raw.empty?

  n = Integer(raw, exception: false)
  abort "config/puma.rb: #{name}=#{raw.inspect} is not a positive integer" unless n&.positive?
  n
end

cpus = positive.call("LAB_CPUS", Etc.nprocessors)
worker_count = positive.call("WEB_CONCURRENCY", cpus)
max_threads = positive.call("RAILS_MAX_THREADS", 5)
port_raw = ENV.fetch("PORT", "8080")
port = Integer(port_raw, exception: false)
abort "config/puma.rb: PORT=#{port_raw.inspect} is not a port number" unless port&.between?(1, 65_535)

threads max_threads, max_threads

environment "production"
bind "tcp://0.0.0.0:#{port}"

if worker_count > 1
  workers worker_count
  preload_app!
  # The GC log's thread (config/initializers/gc_log.rb) is the master's
  # alone after a fork: each worker starts its own. The audit worker's
  # thread (app/workers/audit_worker.rb) runs in each worker, never in the
  # master, which serves nothing; in single mode
  # config/initializers/audit_worker.rb starts it.
  on_worker_boot do
    GCLog.start if defined?(GCLog)
    AuditWorker.start
  end
  # The lab needs an exit within 5 s of SIGTERM (Puma's default is 30 s).
  worker_shutdown_timeout 3
else
  # Explicit: Puma's own default would read WEB_CONCURRENCY=1 as a cluster of one.
  workers 0
end
force_shutdown_after 3
# After a graceful stop on SIGTERM, exit 0 rather than re-raising the signal.
raise_exception_on_sigterm false
