# POST /orders, POST /orders/:id/cancel. The token (CsrfProtection) and the
# session (Authentication) are checked first, in that order.
class OrdersController < ApplicationController
  include Authentication

  # Valid: the order and its job in one transaction (BEGIN IMMEDIATE on
  # SQLite), then 303 to /account. Invalid: 422, the account page with the
  # first invalid field of email, amount, currency named.
  def create
    order = Order.place(Current.user, order_params)
    if order.save
      redirect_to "/account", status: :see_other
    else
      error = order.errors.first
      @invalid = { field: error.attribute, message: error.message }
      @form = order_params
      @user = Current.user
      @orders = @user.orders.newest
      render "accounts/show", status: :unprocessable_entity
    end
  end

  # Another user's order is not told apart from no order: 404. The status
  # is read again under the row's lock (with_lock: on SQLite the write
  # transaction's lock, on Postgres FOR UPDATE), so of two cancels one
  # wins and the other gets 409.
  def cancel
    id = params[:id]
    order = Current.user.orders.find_by(id: id) if id.match?(/\A[1-9][0-9]{0,17}\z/)
    return render plain: "no such order\n", status: :not_found unless order

    cancelled = order.with_lock { order.pending? && order.cancel! }
    return render plain: "order is not pending\n", status: :conflict unless cancelled

    redirect_to "/account", status: :see_other
  end

  private

  # Absent (or not a string) is invalid, not an error: the model says which.
  def order_params
    params.permit(:email, :amount, :currency)
  end
end
