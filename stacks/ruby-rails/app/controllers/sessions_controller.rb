# GET /sign_in, POST /sign_in, POST /sign_out (docs/app.md, "Signed-in routes").
class SessionsController < ApplicationController
  include Authentication
  allow_unauthenticated_access

  # The same form, signed in or not.
  def new; end

  # The token is checked before this runs (CsrfProtection). Then both
  # fields must be there (400), and the password is checked with bcrypt,
  # once whether or not the email names a user: an unknown email and a
  # wrong password get the same 422 page.
  def create
    email, password = params[:email], params[:password]
    unless email.is_a?(String) && password.is_a?(String)
      return render plain: "email and password are required\n", status: :bad_request
    end

    if (user = User.authenticate_by(email: email, password: password))
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
end
