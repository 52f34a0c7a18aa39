class ItemsController < ApplicationController
  def index
    render json: { items: Item.newest.as_json }
  end

  # app/views/items/page.html.erb in the application layout
  def page
    @items = Item.newest
  end
end
