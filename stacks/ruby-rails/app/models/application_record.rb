class ApplicationRecord < ActiveRecord::Base
  self.abstract_class = true
  # created_at is the lab's Unix milliseconds integer, not a Rails timestamp.
  self.record_timestamps = false
end
