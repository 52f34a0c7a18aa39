package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"stacklab/stacks"
)

// The app's database on the server role, and the login role it connects as.
const (
	pgDatabase = "app"
	pgAppRole  = "app"
)

// seedPostgres makes a fresh app database on the server at admin (a URL
// naming the superuser's maintenance database): any old one dropped with
// its connections, the schema, the same rows as the SQLite seed, the
// identity past them, then a checkpoint, so a window starts with no seed
// pages left to write.
func seedPostgres(ctx context.Context, admin string, size stacks.Size) error {
	c, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	for _, q := range []string{
		"DROP DATABASE IF EXISTS " + pgDatabase + " WITH (FORCE)",
		"CREATE DATABASE " + pgDatabase,
		`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '` + pgAppRole + `') THEN CREATE ROLE ` + pgAppRole + ` LOGIN; END IF; END $$`,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	appURL, err := databaseURL(admin, pgDatabase)
	if err != nil {
		return err
	}
	d, err := pgx.Connect(ctx, appURL)
	if err != nil {
		return err
	}
	defer d.Close(ctx)
	tx, err := d.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after a commit, a no-op
	if _, err := tx.Exec(ctx, stacks.SchemaPostgres); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	items := stacks.Items(size.Items)
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"items"}, []string{"id", "title", "body", "created_at"},
		pgx.CopyFromSlice(len(items), func(i int) ([]any, error) {
			return []any{items[i].ID, items[i].Title, items[i].Body, items[i].CreatedAt}, nil
		})); err != nil {
		return fmt.Errorf("items: %w", err)
	}
	events := stacks.Events(size.Events)
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"bench_events"}, []string{"id", "payload", "created_at"},
		pgx.CopyFromSlice(len(events), func(i int) ([]any, error) {
			return []any{events[i].ID, events[i].Payload, events[i].CreatedAt}, nil
		})); err != nil {
		return fmt.Errorf("bench_events: %w", err)
	}
	users, err := stacks.Users(size.Users)
	if err != nil {
		return err
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"users"}, []string{"id", "email", "password_hash", "created_at"},
		pgx.CopyFromSlice(len(users), func(i int) ([]any, error) {
			return []any{users[i].ID, users[i].Email, users[i].PasswordHash, users[i].CreatedAt}, nil
		})); err != nil {
		return fmt.Errorf("users: %w", err)
	}
	orders := stacks.Orders(size)
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"orders"}, []string{"id", "user_id", "email", "status", "total_cents", "currency", "placed_at"},
		pgx.CopyFromSlice(len(orders), func(i int) ([]any, error) {
			o := orders[i]
			return []any{o.ID, o.UserID, o.Email, o.Status, o.TotalCents, o.Currency, o.PlacedAt}, nil
		})); err != nil {
		return fmt.Errorf("orders: %w", err)
	}
	// One audit row per order, ids in order as SQLite's rowids are.
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"audit"}, []string{"id", "order_id", "action", "at"},
		pgx.CopyFromSlice(len(orders), func(i int) ([]any, error) {
			return []any{orders[i].ID, orders[i].ID, "placed", orders[i].PlacedAt}, nil
		})); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	// Every identity past the seed, as SQLite's next rowid is; an empty
	// table's starts at 1.
	for _, t := range []string{"bench_events", "users", "sessions", "orders", "jobs", "audit"} {
		q := fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s', 'id'), COALESCE((SELECT max(id) FROM %s), 0) + 1, false)", t, t)
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	for _, q := range []string{"VACUUM ANALYZE", "CHECKPOINT"} {
		if _, err := d.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// databaseURL is u with its database replaced by name.
func databaseURL(u, name string) (string, error) {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "postgres" && p.Scheme != "postgresql") {
		return "", fmt.Errorf("%q is not a postgres:// URL", u)
	}
	p.Path = "/" + name
	return p.String(), nil
}

// The checksum's tables and columns: every column of every table in id
// order, each read as text the same way from SQLite and from Postgres and
// hashed here, so the two databases are shown to hold the same rows.
var checksumTables = []struct{ name, cols string }{
	{"items", "id, title, body, created_at"},
	{"bench_events", "id, payload, created_at"},
	{"users", "id, email, password_hash, created_at"},
	{"sessions", "id, token, user_id, created_at, expires_at"},
	{"orders", "id, user_id, email, status, total_cents, currency, placed_at"},
	{"jobs", "id, order_id, action, created_at"},
	{"audit", "id, order_id, action, at"},
}

// querier is what the checksum needs of either database.
type querier interface {
	rows(q string, each func(scan func(...any) error) error) error
}

type sqlQuerier struct{ db *sql.DB }

func (s sqlQuerier) rows(q string, each func(func(...any) error) error) error {
	r, err := s.db.Query(q)
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
		if err := each(r.Scan); err != nil {
			return err
		}
	}
	return r.Err()
}

type pgQuerier struct {
	ctx context.Context
	c   *pgx.Conn
}

func (p pgQuerier) rows(q string, each func(func(...any) error) error) error {
	r, err := p.c.Query(p.ctx, q)
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
		if err := each(r.Scan); err != nil {
			return err
		}
	}
	return r.Err()
}

// checksum is "items N SHA256 bench_events M SHA256 ..." over every
// table's rows.
func checksum(q querier) (string, error) {
	var out []string
	for _, t := range checksumTables {
		cols := strings.Split(t.cols, ", ")
		casts := make([]string, len(cols))
		for i, c := range cols {
			casts[i] = "CAST(" + c + " AS TEXT)"
		}
		// ORDER BY the table's column: Postgres names CAST(id AS TEXT) "id", and
		// an unqualified id would sort the text.
		query := "SELECT " + strings.Join(casts, ", ") + " FROM " + t.name + " ORDER BY " + t.name + ".id"
		h := sha256.New()
		n := 0
		err := q.rows(query, func(scan func(...any) error) error {
			vals := make([]string, len(cols))
			dest := make([]any, len(cols))
			for i := range vals {
				dest[i] = &vals[i]
			}
			if err := scan(dest...); err != nil {
				return err
			}
			n++
			fmt.Fprintf(h, "%s\x1e", strings.Join(vals, "\x1f"))
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("%s: %w", t.name, err)
		}
		out = append(out, fmt.Sprintf("%s %d %s", t.name, n, hex.EncodeToString(h.Sum(nil))))
	}
	return strings.Join(out, " "), nil
}

// checksumOf reads target, a SQLite file or a postgres:// URL of the
// app's database.
func checksumOf(target string) (string, error) {
	if isPostgres(target) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, target)
		if err != nil {
			return "", err
		}
		defer c.Close(ctx)
		return checksum(pgQuerier{ctx, c})
	}
	db, err := sql.Open("sqlite3", "file:"+target+"?mode=ro")
	if err != nil {
		return "", err
	}
	defer db.Close()
	return checksum(sqlQuerier{db})
}

// countRows is TABLE's row count in the app's database at target (a
// SQLite file or a postgres:// URL): the write case's rows check.
func countRows(target, table string) (int64, error) {
	q := `SELECT COUNT(*) FROM "` + strings.ReplaceAll(table, `"`, `""`) + `"`
	var n int64
	if isPostgres(target) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, target)
		if err != nil {
			return 0, err
		}
		defer c.Close(ctx)
		return n, c.QueryRow(ctx, q).Scan(&n)
	}
	db, err := sql.Open("sqlite3", "file:"+target+"?mode=ro")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return n, db.QueryRow(q).Scan(&n)
}

func isPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}
