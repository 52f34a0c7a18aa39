# What the audit worker writes: one row per job done.
class Audit < ApplicationRecord
  self.table_name = "audit"
  belongs_to :order
end
