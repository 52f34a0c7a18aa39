# The request's signed-in session and its user, as Rails 8's authentication
# generator keeps them: set by the Authentication concern on each request
# from the database, reset by Rails when the request ends. Shared with
# ruby-rails-sql, where both are rows (hashes) rather than records.
class Current < ActiveSupport::CurrentAttributes
  attribute :session, :user
end
