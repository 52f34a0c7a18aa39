# /bench/upstream: one call to the mock upstream through the process's
# keep-alive pool (config/initializers/upstream.rb). Both Rails stacks'
# BenchController include it: ruby-rails-sql differs in its SQL, not here.
module UpstreamAction
  def upstream
    response = Upstream.delay
    if response.code == "200"
      render json: { ok: true, upstream: 200 }
    else
      render json: { ok: false, error: "upstream answered #{response.code}" }, status: :bad_gateway
    end
  rescue SystemCallError, IOError, Timeout::Error, Net::HTTPBadResponse, ConnectionPool::TimeoutError => e
    render json: { ok: false, error: "#{e.class}: #{e.message}" }, status: :bad_gateway
  end
end
