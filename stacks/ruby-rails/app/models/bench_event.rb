class BenchEvent < ApplicationRecord
  scope :latest, -> { select(:id, :created_at).order(id: :desc).limit(20) }
end
