class BenchController < ApplicationController
  # A machine endpoint, not a form: no CSRF token to check.
  skip_forgery_protection
  include UpstreamAction # /bench/upstream

  PAYLOAD = ("stacklab-bench-event-" + "x" * 179).freeze # 200 ASCII bytes

  INSERT_EVENT = "INSERT INTO bench_events (payload, created_at) VALUES (?, ?)".freeze
  COUNT_EVENTS = "SELECT COUNT(*) FROM bench_events".freeze
  LATEST_EVENTS = "SELECT id, created_at FROM bench_events ORDER BY id DESC LIMIT 20".freeze
  PRAGMAS = %w[journal_mode synchronous busy_timeout cache_size mmap_size journal_size_limit foreign_keys].freeze

  # The transaction is BEGIN IMMEDIATE behind the process's write lock
  # (config/initializers/sqlite_pragmas.rb); insert returns the new rowid.
  def write
    created_at = Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond)
    id = db.transaction do
      db.insert(INSERT_EVENT, "BenchEvent insert", nil, nil, nil, [PAYLOAD, created_at])
    end
    render json: { ok: true, id: id }
  rescue ActiveRecord::ActiveRecordError => e
    render json: { ok: false, error: e.message }, status: :service_unavailable
  end

  def read
    render json: {
      ok: true,
      count: db.select_value(COUNT_EVENTS, "BenchEvent count"),
      latest: db.select_all(LATEST_EVENTS, "BenchEvent latest").to_a,
    }
  end

  # The connection is named by the process and the Ruby object id of its
  # adapter, which the pool makes when it opens the connection, one per
  # SQLite handle (the sqlite3 gem does not show the handle's address, and
  # the adapter's raw_connection would turn its lazy transactions off).
  def pragmas
    values = PRAGMAS.to_h { |name| [name, db.select_value("PRAGMA #{name}")] }
    render json: values.merge("connection" => "#{Process.pid}/#{db.object_id}")
  end
end
