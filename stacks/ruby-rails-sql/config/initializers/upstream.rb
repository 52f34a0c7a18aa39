require "net/http"
require "connection_pool"

# One keep-alive client per process, shared by every thread: a pool of
# started Net::HTTP sessions, one per Puma thread, so a thread never waits
# for another's connection. A started Net::HTTP keeps its connection open
# between requests and reopens it when the upstream has closed it.
# (net-http-persistent, the usual gem for this, is packaged in bookworm
# with a gemspec that refuses Ruby 3.)
module Upstream
  URL = URI.join(ENV.fetch("UPSTREAM_URL", "http://127.0.0.1:9090"), "/delay?ms=100")
  POOL = ConnectionPool.new(size: Integer(ENV.fetch("RAILS_MAX_THREADS", "5")), timeout: 5) do
    http = Net::HTTP.new(URL.host, URL.port, nil) # nil: never a proxy from the environment
    http.open_timeout = 5
    http.read_timeout = 10
    http.keep_alive_timeout = 30
    http
  end

  def self.delay
    POOL.with do |http|
      http.start unless http.started?
      http.request(Net::HTTP::Get.new(URL))
    end
  end
end
