# A signed-in session: one row per sign-in, its token (has_secure_token:
# 24 base58 characters from SecureRandom, about 140 bits) kept in the
# encrypted Rails session cookie, valid for 24 hours.
class Session < ApplicationRecord
  LIFETIME_MS = 86_400_000

  belongs_to :user
  has_secure_token

  scope :unexpired, -> { where("expires_at > ?", now_ms) }

  def self.start_for(user)
    now = now_ms
    create!(user: user, created_at: now, expires_at: now + LIFETIME_MS)
  end
end
