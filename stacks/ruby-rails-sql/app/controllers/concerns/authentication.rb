# ruby-rails's Authentication concern (Rails 8's generator's shape: Current,
# require_authentication, start_new_session_for, terminate_session) with its
# reads and writes in SQL. Every signed-in request reads the session's row
# (by the token the encrypted session cookie carries, not expired), then
# its user: two reads, no cache.
module Authentication
  extend ActiveSupport::Concern

  LIFETIME_MS = 86_400_000
  FIND_SESSION = "SELECT id, user_id FROM sessions WHERE token = ? AND expires_at > ?".freeze
  FIND_USER = "SELECT id, email FROM users WHERE id = ?".freeze
  INSERT_SESSION = "INSERT INTO sessions (token, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)".freeze
  DELETE_SESSION = "DELETE FROM sessions WHERE id = ?".freeze

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
    Current.user ||= Current.session && db.select_one(FIND_USER, "User load", [Current.session["user_id"]])
  end

  def find_session_by_cookie
    token = session[:session_token]
    db.select_one(FIND_SESSION, "Session load", [token, now_ms]) if token.is_a?(String)
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

  # A new sessions row (its token 24 base58 characters from SecureRandom,
  # as ruby-rails's has_secure_token makes it) in a fresh Rails session.
  def start_new_session_for(user)
    reset_session
    token = SecureRandom.base58(24)
    now = now_ms
    id = db.transaction do
      db.insert(INSERT_SESSION, "Session create", nil, nil, nil, [token, user["id"], now, now + LIFETIME_MS])
    end
    Current.session = { "id" => id, "user_id" => user["id"] }
    Current.user = user
    session[:session_token] = token
  end

  # The row deleted, and the cookie expired rather than rewritten (as
  # ruby-rails's).
  def terminate_session
    db.transaction { db.delete(DELETE_SESSION, "Session destroy", [Current.session["id"]]) } if Current.session
    reset_session
    request.session_options[:skip] = true
    cookies.delete(Rails.application.config.session_options[:key])
  end
end
