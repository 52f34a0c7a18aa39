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
func seedPostgres(ctx context.Context, admin string) error {
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
	items := stacks.Items()
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"items"}, []string{"id", "title", "body", "created_at"},
		pgx.CopyFromSlice(len(items), func(i int) ([]any, error) {
			return []any{items[i].ID, items[i].Title, items[i].Body, items[i].CreatedAt}, nil
		})); err != nil {
		return fmt.Errorf("items: %w", err)
	}
	events := stacks.Events()
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"bench_events"}, []string{"id", "payload", "created_at"},
		pgx.CopyFromSlice(len(events), func(i int) ([]any, error) {
			return []any{events[i].ID, events[i].Payload, events[i].CreatedAt}, nil
		})); err != nil {
		return fmt.Errorf("bench_events: %w", err)
	}
	if _, err := tx.Exec(ctx, "SELECT setval(pg_get_serial_sequence('bench_events', 'id'), (SELECT max(id) FROM bench_events))"); err != nil {
		return err
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

// The checksum query: every seeded column of both tables in id order,
// read the same way from SQLite and from Postgres, hashed here, so the two
// databases are shown to hold the same rows.
const (
	checksumItems  = "SELECT id, title, body, created_at FROM items ORDER BY id"
	checksumEvents = "SELECT id, payload, created_at FROM bench_events ORDER BY id"
)

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

// checksum is "items N SHA256 bench_events M SHA256" over the rows of q.
func checksum(q querier) (string, error) {
	var out []string
	for _, t := range []struct {
		name, query string
		cols        int
	}{{"items", checksumItems, 4}, {"bench_events", checksumEvents, 3}} {
		h := sha256.New()
		n := 0
		err := q.rows(t.query, func(scan func(...any) error) error {
			var id, created int64
			var a, b string
			dest := []any{&id, &a, &b, &created}
			if t.cols == 3 {
				dest = []any{&id, &a, &created}
			}
			if err := scan(dest...); err != nil {
				return err
			}
			n++
			fmt.Fprintf(h, "%d\x1f%s\x1f%s\x1f%d\x1e", id, a, b, created)
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
