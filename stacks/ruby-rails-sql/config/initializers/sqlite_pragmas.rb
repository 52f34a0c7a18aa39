# The lab's pragmas on every connection ActiveRecord opens, and every
# transaction BEGIN IMMEDIATE (what Rails 7.1 does; 6.1 issues a deferred
# BEGIN, which fails with SQLITE_BUSY on the read-to-write lock upgrade
# instead of waiting on the busy timeout).
#
# Writers of one process also queue on a Ruby mutex before BEGIN IMMEDIATE.
# SQLite's busy timeout sleeps inside C while holding Ruby's GVL (sqlite3
# gem 1.4): a thread waiting there for the write lock held by another thread
# of the same process keeps that thread from ever reaching COMMIT, and fails
# with "database is locked" after 5 s. Waiting on a Mutex releases the GVL.
# (Rails 7.1 fixes the same thing with a busy handler that releases the GVL;
# that needs sqlite3 gem 1.6+, and it would make PRAGMA busy_timeout read 0.)
# Writers in other processes still wait on the busy timeout.
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

  WRITE_LOCK = Mutex.new

  # Called by the adapter for each new (or reconnected) raw connection.
  def configure_connection
    super
    PRAGMAS.each { |pragma| execute(pragma, "SCHEMA") }
  end

  def begin_db_transaction
    WRITE_LOCK.lock
    begin
      log("begin immediate transaction", "TRANSACTION") { @connection.transaction(:immediate) }
    rescue Exception
      WRITE_LOCK.unlock
      raise
    end
  end

  def commit_db_transaction
    super
  ensure
    WRITE_LOCK.unlock if WRITE_LOCK.owned?
  end

  def exec_rollback_db_transaction
    super
  ensure
    WRITE_LOCK.unlock if WRITE_LOCK.owned?
  end
end

ActiveSupport.on_load(:active_record) do
  require "active_record/connection_adapters/sqlite3_adapter"
  ActiveRecord::ConnectionAdapters::SQLite3Adapter.prepend(StacklabSQLite)
end
