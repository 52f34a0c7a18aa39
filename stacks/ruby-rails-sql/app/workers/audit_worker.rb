# ruby-rails's audit worker (a thread in each serving process, started as
# its config says) with its SQL by hand. It holds one connection of the
# process's pool for its life (the pool is the threads' size plus one), looks
# for work with a plain read (an idle look takes no lock), and does a job
# in one transaction, BEGIN IMMEDIATE behind the process's write lock: the
# lowest-id job deleted, its order and action returned (SQLite 3.35's
# RETURNING), and the audit row written. Two processes' workers never take
# the same job: the DELETE runs under SQLite's write lock.
class AuditWorker
  POLL = 0.1 # seconds, when the queue is empty

  ANY_JOB = "SELECT 1 FROM jobs LIMIT 1".freeze
  TAKE_JOB = "DELETE FROM jobs WHERE id = (SELECT id FROM jobs ORDER BY id LIMIT 1) RETURNING order_id, action".freeze
  INSERT_AUDIT = "INSERT INTO audit (order_id, action, at) VALUES (?, ?, ?)".freeze

  def self.start
    Thread.new { new.run }.tap { |t| t.name = "audit-worker" }
  end

  def run
    ActiveRecord::Base.connection_pool.with_connection do |db|
      loop do
        sleep POLL unless work_one(db)
      rescue StandardError => e
        Rails.logger.warn("audit worker: #{e.class}: #{e.message}")
        sleep POLL
      end
    end
  end

  # Does the lowest-id job, if any; true when it did one.
  def work_one(db)
    return false unless db.select_value(ANY_JOB, "Job any")

    db.transaction do
      job = db.exec_query(TAKE_JOB, "Job take").first
      next false unless job

      now = Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond)
      db.insert(INSERT_AUDIT, "Audit create", nil, nil, nil, [job["order_id"], job["action"], now])
      true
    end
  end
end
