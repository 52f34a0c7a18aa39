# The queue the audit worker drains (app/workers/audit_worker.rb): a row is
# a job not done yet.
class Job < ApplicationRecord
  belongs_to :order
end
