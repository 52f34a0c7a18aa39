# The lab's pragmas on every connection ActiveRecord opens, and every
# transaction BEGIN IMMEDIATE (what Rails 7.1 does; 6.1 issues a deferred
# BEGIN, which fails with SQLITE_BUSY on the read-to-write lock upgrade
# instead of waiting on the busy timeout).
module StacklabSQLite
  PRAGMAS = [
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA busy_timeout = 5000",
    "PRAGMA cache_size = 2000",
    "PRAGMA mmap_size = 134217728",
    "PRAGMA journal_size_limit = 67108864",
    "PRAGMA foreign_keys = ON",
  ].freeze

  # Called by the adapter for each new (or reconnected) raw connection.
  def configure_connection
    super
    PRAGMAS.each { |pragma| execute(pragma, "SCHEMA") }
  end

  def begin_db_transaction
    log("begin immediate transaction", "TRANSACTION") { @connection.transaction(:immediate) }
  end
end

ActiveSupport.on_load(:active_record) do
  require "active_record/connection_adapters/sqlite3_adapter"
  ActiveRecord::ConnectionAdapters::SQLite3Adapter.prepend(StacklabSQLite)
end
