# GET /account: the signed-in user and their newest 20 orders, as HTML or,
# for Accept: application/json, as JSON (rows are hashes in the SELECT's
# column order, which is the JSON's key order).
class AccountsController < ApplicationController
  include Authentication

  NEWEST_ORDERS = "SELECT id, email, status, total_cents, currency, placed_at FROM orders " \
                  "WHERE user_id = ? ORDER BY id DESC LIMIT 20".freeze

  def show
    @user = Current.user
    @orders = db.select_all(NEWEST_ORDERS, "Orders newest", [@user["id"]]).to_a
    if request.format.json?
      render json: { user: @user, orders: @orders, csrf_token: form_authenticity_token }
    else
      @form = {}
    end
  end
end
