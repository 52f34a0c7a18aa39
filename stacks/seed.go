// Package stacks holds what every stack shares: the lab app's schema and its
// deterministic seed data (docs/app.md).
package stacks

import (
	"database/sql"
	_ "embed"
	"fmt"
	"strings"
)

// Schema is stacks/schema.sql.
//
//go:embed schema.sql
var Schema string

// SchemaPostgres is stacks/schema.postgres.sql: the same tables on the
// lab's Postgres server role.
//
//go:embed schema.postgres.sql
var SchemaPostgres string

// seedEpochMs is the created_at of the first seeded row (2025-01-01 UTC).
const seedEpochMs = 1735689600000

type Item struct {
	ID        int64
	Title     string
	Body      string
	CreatedAt int64
}

type Event struct {
	ID        int64
	Payload   string
	CreatedAt int64
}

// Title fragments: every special character HTML must escape, and text
// outside ASCII, so /page and /items are tested on more than letters.
var (
	adjectives = []string{"Quick", "Lazy", "Café", "Naïve", "Tiny", "Grand", "Zürich", "日本の", "Ελληνικό", "Fast"}
	nouns      = []string{"fox", "dog", "résumé", "crème brûlée", "server", "queue", "世界", "ключ", "cache", "lab"}
	extras     = []string{
		"", "<b>bold</b>", "Tom & Jerry", `say "hello"`, "it's fine", "a < b > c",
		"<script>alert('x')</script>", "fish & chips", "", "emoji 🚀",
	}
)

// rng is a fixed 64-bit LCG: the seed must not depend on a library's PRNG.
type rng uint64

func (r *rng) next(n int) int {
	*r = *r*6364136223846793005 + 1442695040888963407
	return int((uint64(*r) >> 33) % uint64(n))
}

// Items returns n seeded items, ids 1..n, created a second apart; the
// first n of a larger seed are the same rows.
func Items(n int) []Item {
	r := rng(42)
	items := make([]Item, 0, n)
	for i := 1; i <= n; i++ {
		title := adjectives[r.next(len(adjectives))] + " " + nouns[r.next(len(nouns))]
		if x := extras[r.next(len(extras))]; x != "" {
			title += " " + x
		}
		// Every tenth item carries all five special characters at once.
		if i%10 == 0 {
			title += ` <&"'>`
		}
		body := fmt.Sprintf("Item %d. %s", i, strings.Repeat("Lorem ipsum dolor sit amet. ", 1+r.next(8)))
		items = append(items, Item{ID: int64(i), Title: title, Body: body, CreatedAt: seedEpochMs + int64(i)*1000})
	}
	return items
}

// Events returns n seeded bench_events, each with a 200-byte ASCII payload.
func Events(n int) []Event {
	events := make([]Event, 0, n)
	for i := 1; i <= n; i++ {
		p := fmt.Sprintf("seed-event-%04d-", i)
		p += strings.Repeat("x", 200-len(p))
		events = append(events, Event{ID: int64(i), Payload: p, CreatedAt: seedEpochMs + int64(i)*1000})
	}
	return events
}

// SeedSQLite writes the schema and every seeded row of a seed of size in
// tx, a transaction on an empty SQLite database: the seed command's file,
// and the databases the probes time (probes/readcost).
func SeedSQLite(tx *sql.Tx, size Size) error {
	if err := size.Check(); err != nil {
		return err
	}
	users, err := Users(size.Users)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(Schema); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	insItem, err := tx.Prepare(`INSERT INTO items(id, title, body, created_at) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insItem.Close()
	for _, it := range Items(size.Items) {
		if _, err := insItem.Exec(it.ID, it.Title, it.Body, it.CreatedAt); err != nil {
			return err
		}
	}
	insEvent, err := tx.Prepare(`INSERT INTO bench_events(id, payload, created_at) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insEvent.Close()
	for _, ev := range Events(size.Events) {
		if _, err := insEvent.Exec(ev.ID, ev.Payload, ev.CreatedAt); err != nil {
			return err
		}
	}
	for _, u := range users {
		if _, err := tx.Exec(`INSERT INTO users(id, email, password_hash, created_at) VALUES (?, ?, ?, ?)`,
			u.ID, u.Email, u.PasswordHash, u.CreatedAt); err != nil {
			return err
		}
	}
	insOrder, err := tx.Prepare(`INSERT INTO orders(id, user_id, email, status, total_cents, currency, placed_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insOrder.Close()
	insAudit, err := tx.Prepare(`INSERT INTO audit(order_id, action, at) VALUES (?, 'placed', ?)`)
	if err != nil {
		return err
	}
	defer insAudit.Close()
	for _, o := range Orders(size) {
		if _, err := insOrder.Exec(o.ID, o.UserID, o.Email, o.Status, o.TotalCents, o.Currency, o.PlacedAt); err != nil {
			return err
		}
		if _, err := insAudit.Exec(o.ID, o.PlacedAt); err != nil {
			return err
		}
	}
	return nil
}
