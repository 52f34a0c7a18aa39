class ItemsController < ApplicationController
  NEWEST = "SELECT id, title, created_at FROM items ORDER BY id DESC LIMIT 20".freeze

  def index
    render json: { items: newest_items }
  end

  # app/views/items/page.html.erb in the application layout
  def page
    @items = newest_items
  end

  private

  # Hashes keyed by column name, in the SELECT's order; SQLite's integers
  # and strings as the sqlite3 gem returns them.
  def newest_items
    db.select_all(NEWEST, "Items newest").to_a
  end
end
