-- The lab app's schema (docs/app.md). Owned by the lab: stacks never create tables.
CREATE TABLE items (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE bench_events (
  id INTEGER PRIMARY KEY,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
-- Signed-in traffic (docs/app.md, "Signed-in routes"): accounts, their sessions,
-- orders placed with a form, the job queue a worker drains, and its audit.
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  token TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  email TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('PENDING', 'PAID', 'CANCELLED', 'EXPIRED')),
  total_cents INTEGER NOT NULL CHECK (total_cents > 0),
  currency TEXT NOT NULL CHECK (length(currency) = 3),
  placed_at INTEGER NOT NULL
);
-- A user's newest orders: /account's list.
CREATE INDEX orders_user_id ON orders(user_id, id);
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders(id),
  action TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE audit (
  id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders(id),
  action TEXT NOT NULL,
  at INTEGER NOT NULL
);
