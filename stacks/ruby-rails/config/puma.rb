# Puma for the CPUs given: one worker process per CPU (LAB_CPUS, else the
# CPUs this process may run on), each with RAILS_MAX_THREADS threads
# (Rails' default, 5). With one CPU Puma runs in single mode: a cluster of
# one only adds a master process.
require "etc"

cpus_raw = ENV.fetch("LAB_CPUS", "")
cpus = if cpus_raw.empty?
  Etc.nprocessors
else
  Integer(cpus_raw, exception: false).then do |n|
    abort "ruby-rails: LAB_CPUS=#{cpus_raw.inspect} is not a positive integer" unless n&.positive?
    n
  end
end
port_raw = ENV.fetch("PORT", "8080")
port = Integer(port_raw, exception: false)
abort "ruby-rails: PORT=#{port_raw.inspect} is not a port number" unless port&.between?(1, 65_535)

max_threads = Integer(ENV.fetch("RAILS_MAX_THREADS", "5"))
threads max_threads, max_threads

environment "production"
bind "tcp://0.0.0.0:#{port}"

if cpus > 1
  workers cpus
  preload_app!
  # The lab needs an exit within 5 s of SIGTERM (Puma's default is 30 s).
  worker_shutdown_timeout 3
end
force_shutdown_after 3
# After a graceful stop on SIGTERM, exit 0 rather than re-raising the signal.
raise_exception_on_sigterm false
