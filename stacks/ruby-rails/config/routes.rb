Rails.application.routes.draw do
  get "/up", to: "status#up"
  get "/json", to: "status#hello"
  get "/items", to: "items#index"
  get "/page", to: "items#page"
  get "/bench/upstream", to: "bench#upstream"
  post "/bench/write", to: "bench#write"
  get "/bench/read", to: "bench#read"
  get "/bench/pragmas", to: "bench#pragmas"

  # Signed in (docs/app.md, "Signed-in routes"). format: false: /account's JSON
  # twin is chosen by the Accept header, not by a ".json" path.
  scope format: false do
    get "/sign_in", to: "sessions#new"
    post "/sign_in", to: "sessions#create"
    post "/sign_out", to: "sessions#destroy"
    get "/account", to: "accounts#show"
    post "/orders", to: "orders#create"
    post "/orders/:id/cancel", to: "orders#cancel"
  end

  # Rails answers a known path with the wrong method as an unknown route
  # (404); the contract wants 405 there.
  %w[/up /json /items /page /bench/upstream /bench/write /bench/read /bench/pragmas].each do |path|
    match path, to: "errors#method_not_allowed", via: :all
  end
  %w[/sign_in /sign_out /account /orders /orders/:id/cancel].each do |path|
    match path, to: "errors#method_not_allowed", via: :all, format: false
  end
  match "*path", to: "errors#not_found", via: :all, format: false
  match "/", to: "errors#not_found", via: :all
end
