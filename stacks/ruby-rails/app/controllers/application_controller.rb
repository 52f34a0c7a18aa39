class ApplicationController < ActionController::Base
  include CsrfProtection
end
