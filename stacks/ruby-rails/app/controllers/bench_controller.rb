class BenchController < ApplicationController
  # A machine endpoint, not a form: no CSRF token to check.
  skip_forgery_protection
  include UpstreamAction # /bench/upstream

  PAYLOAD = ("stacklab-bench-event-" + "x" * 179).freeze # 200 ASCII bytes

  # create! runs in a transaction, which the SQLite initializer makes
  # BEGIN IMMEDIATE.
  def write
    event = BenchEvent.create!(payload: PAYLOAD, created_at: Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond))
    render json: { ok: true, id: event.id }
  rescue ActiveRecord::ActiveRecordError => e
    render json: { ok: false, error: e.message }, status: :service_unavailable
  end

  def read
    render json: { ok: true, count: BenchEvent.count, latest: BenchEvent.latest.as_json }
  end

  PRAGMAS = %w[journal_mode synchronous busy_timeout cache_size mmap_size journal_size_limit foreign_keys].freeze

  # The connection is named by the process and the Ruby object id of its
  # adapter, which the pool makes when it opens the connection, one per
  # SQLite handle (the sqlite3 gem does not show the handle's address, and
  # the adapter's raw_connection would turn its lazy transactions off).
  def pragmas
    connection = ActiveRecord::Base.connection
    values = PRAGMAS.to_h { |name| [name, connection.select_value("PRAGMA #{name}")] }
    render json: values.merge("connection" => "#{Process.pid}/#{connection.object_id}")
  end
end
