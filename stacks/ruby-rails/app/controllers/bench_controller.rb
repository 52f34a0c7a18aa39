class BenchController < ApplicationController
  # A machine endpoint, not a form: no CSRF token to check.
  skip_forgery_protection
  include UpstreamAction # /bench/upstream

  PAYLOAD = ("stacklab-bench-event-" + "x" * 179).freeze # 200 ASCII bytes

  def postgres?
    ActiveRecord::Base.connection.adapter_name == "PostgreSQL"
  end

  # create! runs in a transaction, which the SQLite initializer makes
  # BEGIN IMMEDIATE.
  def write
    event = BenchEvent.create!(payload: PAYLOAD, created_at: Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond))
    render json: { ok: true, id: event.id }
  rescue ActiveRecord::ActiveRecordError => e
    render json: { ok: false, error: e.message }, status: :service_unavailable
  end

  def read
    if postgres?
      # Postgres takes a snapshot per statement at read committed: one
      # repeatable-read transaction holds the count and the rows to one.
      BenchEvent.transaction(isolation: :repeatable_read) do
        render json: { ok: true, count: BenchEvent.count, latest: BenchEvent.latest.as_json }
      end
    else
      render json: { ok: true, count: BenchEvent.count, latest: BenchEvent.latest.as_json }
    end
  end

  PRAGMAS = %w[journal_mode synchronous busy_timeout cache_size mmap_size journal_size_limit foreign_keys].freeze

  # The connection is named by the process and the Ruby object id of its
  # adapter, which the pool makes when it opens the connection, one per
  # SQLite handle (the sqlite3 gem does not show the handle's address, and
  # the adapter's raw_connection would turn its lazy transactions off).
  # On Postgres the session's settings that matter (docs/app.md), named by the
  # server process behind this connection (pg_backend_pid).
  PG_SETTINGS = %w[transaction_isolation synchronous_commit statement_timeout client_encoding].freeze

  def pragmas
    connection = ActiveRecord::Base.connection
    if postgres?
      values = PG_SETTINGS.to_h { |name| [name, connection.select_value("SELECT current_setting('#{name}')")] }
      return render json: values.merge("connection" => "backend pid #{connection.select_value("SELECT pg_backend_pid()")}")
    end
    values = PRAGMAS.to_h { |name| [name, connection.select_value("PRAGMA #{name}")] }
    render json: values.merge("connection" => "#{Process.pid}/#{connection.object_id}")
  end
end
