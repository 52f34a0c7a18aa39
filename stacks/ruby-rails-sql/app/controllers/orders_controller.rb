# POST /orders, POST /orders/:id/cancel, as ruby-rails's with the checks
# written out and the writes in SQL. The token (CsrfProtection) and the
# session (Authentication) are checked first, in that order.
class OrdersController < ApplicationController
  include Authentication

  EMAIL = /\A[^@\s]+@[^@\s]+\.[^@\s]+\z/
  # Major units as text, at most two decimals: parsed as text, never a float.
  AMOUNT = /\A([0-9]{1,7})(?:\.([0-9]{1,2}))?\z/
  CURRENCY = /\A[A-Z]{3}\z/

  INSERT_ORDER = "INSERT INTO orders (user_id, email, status, total_cents, currency, placed_at) " \
                 "VALUES (?, ?, 'PENDING', ?, ?, ?)".freeze
  INSERT_JOB = "INSERT INTO jobs (order_id, action, created_at) VALUES (?, ?, ?)".freeze
  FIND_ORDER = "SELECT id FROM orders WHERE id = ? AND user_id = ?".freeze
  CANCEL_ORDER = "UPDATE orders SET status = 'CANCELLED' WHERE id = ? AND status = 'PENDING'".freeze
  NEWEST_ORDERS = AccountsController::NEWEST_ORDERS

  # Valid: the order and its job in one transaction (BEGIN IMMEDIATE behind
  # the write lock), then 303 to /account. Invalid: 422, the account page
  # with the first invalid field of email, amount, currency named.
  def create
    form = params.permit(:email, :amount, :currency)
    email, currency = form[:email].to_s, form[:currency].to_s
    cents = cents(form[:amount])
    invalid =
      if !EMAIL.match?(email) || email.bytesize > 254 then { field: "email", message: "Invalid email." }
      elsif !cents then { field: "amount", message: "Invalid amount." }
      elsif !CURRENCY.match?(currency) then { field: "currency", message: "Invalid currency." }
      end
    return invalid_order(invalid, form) if invalid

    user_id = Current.user["id"]
    now = now_ms
    db.transaction do
      id = db.insert(INSERT_ORDER, "Order create", nil, nil, nil, [user_id, email, cents, currency, now])
      db.insert(INSERT_JOB, "Job create", nil, nil, nil, [id, "placed", now])
    end
    redirect_to "/account", status: :see_other
  end

  # Another user's order is not told apart from no order: 404. The status
  # changes only if it is still PENDING, under the write transaction's
  # lock, so of two cancels one wins and the other gets 409.
  def cancel
    id = params[:id]
    found = id.match?(/\A[1-9][0-9]{0,17}\z/) && db.select_value(FIND_ORDER, "Order load", [Integer(id, 10), Current.user["id"]])
    return render plain: "no such order\n", status: :not_found unless found

    cancelled = db.transaction do
      next false if db.update(CANCEL_ORDER, "Order cancel", [found]).zero?

      db.insert(INSERT_JOB, "Job create", nil, nil, nil, [found, "cancelled", now_ms])
      true
    end
    return render plain: "order is not pending\n", status: :conflict unless cancelled

    redirect_to "/account", status: :see_other
  end

  private

  # "149.90" and "149.9" → 14990, "149" → 14900, "0.01" → 1; nil when the
  # text is not an amount above zero.
  def cents(text)
    m = AMOUNT.match(text.to_s)
    cents = m && (Integer(m[1], 10) * 100 + Integer((m[2] || "").ljust(2, "0"), 10))
    cents if cents&.positive?
  end

  def invalid_order(invalid, form)
    @invalid = invalid
    @form = form
    @user = Current.user
    @orders = db.select_all(NEWEST_ORDERS, "Orders newest", [@user["id"]]).to_a
    render "accounts/show", status: :unprocessable_entity
  end
end
