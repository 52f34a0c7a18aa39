module ApplicationHelper
  # The hidden token every form carries: Rails' CSRF token for this
  # session, masked afresh on each page, as Rails' own form helpers write it.
  def csrf_field
    tag.input(type: "hidden", name: request_forgery_protection_token, value: form_authenticity_token)
  end

  # Minor units as major with exactly two decimals: 14990 → "149.90", 5 → "0.05".
  def amount(cents)
    format("%d.%02d", cents / 100, cents % 100)
  end
end
