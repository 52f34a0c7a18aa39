package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoutes(t *testing.T) {
	db, err := open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO contacts VALUES (7, 'Ada Lovelace', 'ada@example.org', '+44 20 0000 0007')`); err != nil {
		t.Fatal(err)
	}
	h := handler(db)
	for path, want := range map[string]string{"/healthz": "ok", "/contacts/7": `"name":"Ada Lovelace"`, "/contacts?from=A": `"id":7`} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: %d %q, want 200 with %q", path, rec.Code, rec.Body.String(), want)
		}
	}
}
