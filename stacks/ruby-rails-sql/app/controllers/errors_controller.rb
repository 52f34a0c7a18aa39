class ErrorsController < ApplicationController
  skip_forgery_protection

  def not_found
    render json: { error: "not found" }, status: :not_found
  end

  def method_not_allowed
    render json: { error: "method not allowed" }, status: :method_not_allowed
  end
end
