package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/mattn/go-sqlite3"
)

// Contract is the per-connection setup every stack must run (docs/app.md), in order.
var Contract = []Pragma{
	{"journal_mode", "WAL", "wal"},
	{"synchronous", "NORMAL", "1"},
	{"busy_timeout", "5000", "5000"},
	{"cache_size", "2000", "2000"},
	{"mmap_size", "134217728", "134217728"},
	{"journal_size_limit", "67108864", "67108864"},
	{"foreign_keys", "ON", "1"},
}

// Pragma is one setting: the value to set and the value reading it back gives.
type Pragma struct {
	Name, Set, Want string
}

var registerOnce sync.Once

const hookedDriver = "sqlite3_sqliteinfo_hooked"

// register makes a driver that runs the contract on every new connection.
func register() {
	registerOnce.Do(func() {
		sql.Register(hookedDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
			for _, p := range Contract {
				if _, err := c.Exec(fmt.Sprintf("PRAGMA %s = %s", p.Name, p.Set), nil); err != nil {
					return err
				}
			}
			return nil
		}})
	})
}

// ConnPragmas is what one pooled connection reports.
type ConnPragmas struct {
	Pool   string            `json:"pool"`
	Conn   int               `json:"conn"`
	Values map[string]string `json:"pragmas"`
}

// naiveDSN sets synchronous=FULL explicitly: go-sqlite3 would otherwise
// apply NORMAL on every open, hiding the bug that other drivers (and
// SQLite's own default, FULL) show.
func naiveDSN(path string) string { return "file:" + path + "?_synchronous=FULL" }

// openPool opens a pool of n connections the naive way (the pragmas run once
// through db.Exec) or the hooked way (a ConnectHook runs them on each).
func openPool(path string, n int, hooked bool) (*sql.DB, error) {
	driver := "sqlite3"
	if hooked {
		register()
		driver = hookedDriver
	}
	db, err := sql.Open(driver, naiveDSN(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n) // or database/sql keeps 2 and reopens the rest
	if !hooked {
		for _, p := range Contract {
			if _, err := db.Exec(fmt.Sprintf("PRAGMA %s = %s", p.Name, p.Set)); err != nil {
				db.Close()
				return nil, err
			}
		}
	}
	return db, nil
}

// inspectPool takes all n connections at once (so each is a different
// physical connection) and reads the contract's pragmas on each.
func inspectPool(ctx context.Context, db *sql.DB, n int, pool string) ([]ConnPragmas, error) {
	conns := make([]*sql.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var out []ConnPragmas
	for i := 0; i < n; i++ {
		c, err := db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		conns = append(conns, c)
		vals := map[string]string{}
		for _, p := range Contract {
			var v string
			if err := c.QueryRowContext(ctx, "PRAGMA "+p.Name).Scan(&v); err != nil {
				return nil, fmt.Errorf("PRAGMA %s: %v", p.Name, err)
			}
			vals[p.Name] = strings.ToLower(v)
		}
		out = append(out, ConnPragmas{Pool: pool, Conn: i + 1, Values: vals})
	}
	return out, nil
}

// offContract counts the connections whose pragma differs from the contract.
func offContract(conns []ConnPragmas, name string) int {
	want := ""
	for _, p := range Contract {
		if p.Name == name {
			want = p.Want
		}
	}
	n := 0
	for _, c := range conns {
		if c.Values[name] != want {
			n++
		}
	}
	return n
}

// syncName renders a synchronous value as SQLite names it.
func syncName(v string) string {
	if n, ok := map[string]string{"0": "OFF", "1": "NORMAL", "2": "FULL", "3": "EXTRA"}[v]; ok {
		return n + "(" + v + ")"
	}
	return v
}
