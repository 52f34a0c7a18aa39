// Command address-book is an app that is not the lab's and was not written
// for it: it reads BIND_ADDR (not PORT) and CONTACTS_DB (not
// DATABASE_PATH), takes its CPU count from GOMAXPROCS (not LAB_CPUS),
// migrates its own schema at start and serves a database it brings
// (data/contacts.db, 10,000 contacts). Its stack folder says all of that
// (stack.env: ENV and DATA) so the lab runs it as it is (docs/guard.md).
package main

import (
	"database/sql"
	"encoding/json"
	"log"
	"net/http"
	"os"
	"strconv"

	_ "github.com/mattn/go-sqlite3"
)

type contact struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Phone string `json:"phone"`
}

// migrations are the app's own: applied in order at every start, each
// idempotent.
var migrations = []string{
	`CREATE TABLE IF NOT EXISTS contacts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, phone TEXT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS contacts_name ON contacts (name)`,
}

func open(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_busy_timeout=5000")
	if err != nil {
		return nil, err
	}
	for _, m := range migrations {
		if _, err := db.Exec(m); err != nil {
			return nil, err
		}
	}
	return db, nil
}

func handler(db *sql.DB) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /contacts/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil {
			http.Error(w, "bad id", http.StatusBadRequest)
			return
		}
		var c contact
		err = db.QueryRowContext(r.Context(), `SELECT id, name, email, phone FROM contacts WHERE id = ?`, id).Scan(&c.ID, &c.Name, &c.Email, &c.Phone)
		if err == sql.ErrNoRows {
			http.NotFound(w, r)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(c)
	})
	mux.HandleFunc("GET /contacts", func(w http.ResponseWriter, r *http.Request) {
		rows, err := db.QueryContext(r.Context(), `SELECT id, name, email, phone FROM contacts WHERE name >= ? ORDER BY name LIMIT 20`, r.URL.Query().Get("from"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer rows.Close()
		out := []contact{}
		for rows.Next() {
			var c contact
			if err := rows.Scan(&c.ID, &c.Name, &c.Email, &c.Phone); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			out = append(out, c)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"contacts": out})
	})
	return mux
}

func main() {
	addr := os.Getenv("BIND_ADDR")
	if addr == "" {
		log.Fatal("BIND_ADDR is not set (host:port to listen on)")
	}
	path := os.Getenv("CONTACTS_DB")
	if path == "" {
		log.Fatal("CONTACTS_DB is not set (the SQLite file of contacts)")
	}
	db, err := open(path)
	if err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	log.Fatal(http.ListenAndServe(addr, handler(db)))
}
