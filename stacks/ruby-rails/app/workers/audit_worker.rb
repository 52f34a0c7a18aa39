# The background worker (docs/app.md, "The background worker"): a thread in each
# serving process (config/initializers/audit_worker.rb, config/puma.rb)
# that drains the jobs table. It takes the lowest-id job and, in one write
# transaction, writes its audit row and deletes it. While jobs wait it
# takes the next at once; when there is none it sleeps POLL and looks
# again.
#
# It holds one connection of the process's pool for its life (the pool is
# the threads' size plus one, config/database.yml), so it never waits for
# a request's thread nor makes one wait. It looks for work with a plain
# read, outside any transaction: an idle look takes no lock. The write is
# ActiveRecord's transaction, so on SQLite it is BEGIN IMMEDIATE behind the
# process's write lock like every other write
# (config/initializers/sqlite_pragmas.rb), and the job is read again under
# that lock: two processes' workers never take the same job. On Postgres
# the job is locked FOR UPDATE SKIP LOCKED (SQLite's SQL has no row locks,
# and ActiveRecord leaves the clause out there), so workers of several
# processes take different jobs at once.
class AuditWorker
  POLL = 0.1 # seconds, when the queue is empty

  def self.start
    Thread.new { new.run }.tap { |t| t.name = "audit-worker" }
  end

  def run
    ActiveRecord::Base.connection_pool.with_connection do
      loop do
        sleep POLL unless work_one
      rescue StandardError => e
        Rails.logger.warn("audit worker: #{e.class}: #{e.message}")
        sleep POLL
        reconnect
      end
    end
  end

  # After a failure: a connection the server dropped is opened again.
  def reconnect
    ActiveRecord::Base.connection.verify!
  rescue StandardError
    nil
  end

  # Does the lowest-id job, if any; true when it did one.
  def work_one
    return false unless Job.exists?

    Job.transaction do
      job = Job.order(:id).lock("FOR UPDATE SKIP LOCKED").first
      next false unless job

      Audit.create!(order_id: job.order_id, action: job.action, at: Job.now_ms)
      job.delete
      true
    end
  end
end
