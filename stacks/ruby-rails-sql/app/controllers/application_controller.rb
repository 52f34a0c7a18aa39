class ApplicationController < ActionController::Base
  include CsrfProtection # ruby-rails's: Rails' CSRF protection, 403 on a bad token

  private

  # The SQLite connection ActiveRecord has checked out for this request's
  # thread (back to the pool when the request ends). Controllers send it
  # SQL directly: there are no models.
  def db
    ActiveRecord::Base.connection
  end

  # The lab's times: Unix milliseconds.
  def now_ms
    Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond)
  end
end
