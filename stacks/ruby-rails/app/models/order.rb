class Order < ApplicationRecord
  belongs_to :user
  has_many :jobs

  EMAIL = /\A[^@\s]+@[^@\s]+\.[^@\s]+\z/
  # Major units as text, at most two decimals: parsed as text, never a float.
  AMOUNT = /\A([0-9]{1,7})(?:\.([0-9]{1,2}))?\z/
  CURRENCY = /\A[A-Z]{3}\z/

  scope :newest, -> { order(id: :desc).limit(20) }

  # The form's fields in docs/app.md's order (the first error is the field the
  # 422 names); an absent field is invalid. belongs_to's check of the user
  # reads nothing: the order is built from the signed-in user.
  validates :email, format: { with: EMAIL, message: "Invalid email." }
  validate { errors.add(:email, "Invalid email.") if email && email.bytesize > 254 }
  validate { errors.add(:amount, "Invalid amount.") unless total_cents }
  validates :currency, format: { with: CURRENCY, message: "Invalid currency." }

  attr_reader :amount

  # "149.90" and "149.9" → 14990, "149" → 14900, "0.01" → 1; nil when the
  # text is not an amount above zero.
  def amount=(text)
    @amount = text
    m = AMOUNT.match(text.to_s)
    cents = m && (Integer(m[1], 10) * 100 + Integer((m[2] || "").ljust(2, "0"), 10))
    self.total_cents = cents&.positive? ? cents : nil
  end

  def pending?
    status == "PENDING"
  end

  # A new order of the user, PENDING, and its job ("placed"): saved
  # together, in one transaction, by save.
  def self.place(user, fields)
    now = now_ms
    order = user.orders.new(fields.merge(status: "PENDING", placed_at: now))
    order.jobs.new(action: "placed", created_at: now)
    order
  end

  # Inside the caller's transaction (with_lock): the status and its job.
  def cancel!
    update!(status: "CANCELLED")
    jobs.create!(action: "cancelled", created_at: self.class.now_ms)
  end
end
