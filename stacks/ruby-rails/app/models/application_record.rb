class ApplicationRecord < ActiveRecord::Base
  self.abstract_class = true
  # created_at is the lab's Unix milliseconds integer, not a Rails timestamp.
  self.record_timestamps = false

  # The lab's times: Unix milliseconds.
  def self.now_ms
    Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond)
  end
end
