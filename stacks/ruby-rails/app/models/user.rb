class User < ApplicationRecord
  has_many :sessions
  has_many :orders

  # has_secure_password (bcrypt-ruby) over the lab's column: the seed's
  # $2b$ cost-10 hashes are bcrypt strings, which is what it stores.
  alias_attribute :password_digest, :password_hash
  has_secure_password

  # A hash of the same cost to check a password against when no user has
  # the email, so that an unknown email costs one bcrypt verification like
  # a wrong password (what Rails 7.1's authenticate_by does). Made once per
  # boot from a random string: no password matches it.
  DUMMY_PASSWORD = BCrypt::Password.create(SecureRandom.hex(32), cost: 10)

  # The user with this email and password, or nil; one bcrypt check either way.
  def self.authenticate_by(email:, password:)
    user = find_by(email: email)
    if user
      user.authenticate(password) || nil
    else
      DUMMY_PASSWORD.is_password?(password)
      nil
    end
  end
end
