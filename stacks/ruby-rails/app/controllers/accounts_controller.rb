# GET /account: the signed-in user and their newest 20 orders, as HTML or,
# for Accept: application/json, as JSON.
class AccountsController < ApplicationController
  include Authentication

  def show
    @user = Current.user
    @orders = @user.orders.newest
    if request.format.json?
      render json: {
        user: @user.as_json(only: %i[id email]),
        orders: @orders.as_json(only: %i[id email status total_cents currency placed_at]),
        csrf_token: form_authenticity_token,
      }
    else
      @form = {}
    end
  end
end
