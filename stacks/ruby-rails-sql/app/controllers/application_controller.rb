class ApplicationController < ActionController::Base
  private

  # The SQLite connection ActiveRecord has checked out for this request's
  # thread (back to the pool when the request ends). Controllers send it
  # SQL directly: there are no models.
  def db
    ActiveRecord::Base.connection
  end
end
