# Signing in and out, and the signed-in user of a request, as Rails 8's
# authentication generator does it: the session's row is looked up in the
# database on every request (by the token the encrypted session cookie
# carries, and not expired), then its user; no cache, so a row deleted or
# expired in the database signs the client out on its next request.
# Current holds both for the request.
module Authentication
  extend ActiveSupport::Concern

  included do
    before_action :require_authentication
  end

  class_methods do
    def allow_unauthenticated_access(**options)
      skip_before_action :require_authentication, **options
    end
  end

  private

  def require_authentication
    resume_session || request_authentication
  end

  def resume_session
    Current.session ||= find_session_by_cookie
    Current.user ||= Current.session&.user
  end

  def find_session_by_cookie
    token = session[:session_token]
    Session.unexpired.find_by(token: token) if token.is_a?(String)
  end

  # To the sign-in form; /account's JSON twin (a GET asking for JSON): 401.
  # A form post is always redirected.
  def request_authentication
    if request.get? && request.format.json?
      render json: { error: "unauthorized" }, status: :unauthorized
    else
      redirect_to "/sign_in", status: :see_other
    end
  end

  # A new sessions row and its token in a fresh Rails session (reset_session:
  # no data of the session before sign-in carries over).
  def start_new_session_for(user)
    reset_session
    Current.session = Session.start_for(user)
    Current.user = user
    session[:session_token] = Current.session.token
  end

  # The row deleted, and the cookie expired rather than rewritten: the
  # session store writes nothing for this request (skip) and the cookie
  # jar sends lab_session with Max-Age=0.
  def terminate_session
    Current.session&.delete
    reset_session
    request.session_options[:skip] = true
    cookies.delete(Rails.application.config.session_options[:key])
  end
end
