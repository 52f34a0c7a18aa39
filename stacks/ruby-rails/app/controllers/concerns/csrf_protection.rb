# Rails' CSRF protection on every POST of the app's forms (the bench's
# machine endpoints skip it): the token is Rails' own, kept in the
# encrypted session cookie (config/application.rb) and handed to each form
# masked afresh (ApplicationHelper#csrf_field). A missing token, or one
# not issued to this client's session, is refused before any other filter
# or the action runs; Rails raises InvalidAuthenticityToken and answers
# 422 by default, the lab asks for 403.
module CsrfProtection
  extend ActiveSupport::Concern

  included do
    protect_from_forgery with: :exception, prepend: true
    rescue_from ActionController::InvalidAuthenticityToken, with: :forbidden_without_token
  end

  private

  def forbidden_without_token
    render plain: "invalid or missing CSRF token\n", status: :forbidden
  end
end
