class StatusController < ApplicationController
  def up
    render plain: "ok"
  end

  def hello
    render json: { message: "Hello, World!" }
  end
end
