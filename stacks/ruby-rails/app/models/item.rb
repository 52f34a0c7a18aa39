class Item < ApplicationRecord
  scope :newest, -> { select(:id, :title, :created_at).order(id: :desc).limit(20) }
end
