# GET /sign_in, POST /sign_in, POST /sign_out, as ruby-rails's but with the
# user read by SQL and its hash checked with bcrypt-ruby's BCrypt::Password
# directly (what has_secure_password calls).
class SessionsController < ApplicationController
  include Authentication
  allow_unauthenticated_access

  FIND_USER_BY_EMAIL = "SELECT id, email, password_hash FROM users WHERE email = ?".freeze
  # Checked against when no user has the email, so an unknown email costs
  # one bcrypt verification like a wrong password. Made once per boot from
  # a random string, cost 10 as the seed's hashes.
  DUMMY_PASSWORD = BCrypt::Password.create(SecureRandom.hex(32), cost: 10)

  def new; end

  def create
    email, password = params[:email], params[:password]
    unless email.is_a?(String) && password.is_a?(String)
      return render plain: "email and password are required\n", status: :bad_request
    end

    if (user = authenticate(email, password))
      start_new_session_for(user)
      redirect_to "/account", status: :see_other
    else
      @failed = true
      render :new, status: :unprocessable_entity
    end
  end

  def destroy
    resume_session
    terminate_session
    redirect_to "/sign_in", status: :see_other
  end

  private

  # The user's row (id, email) when the password matches its hash, else nil.
  def authenticate(email, password)
    user = db.select_one(FIND_USER_BY_EMAIL, "User load", [email])
    if user
      user.except("password_hash") if BCrypt::Password.new(user["password_hash"]).is_password?(password)
    else
      DUMMY_PASSWORD.is_password?(password)
      nil
    end
  end
end
