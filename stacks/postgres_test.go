package stacks

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The Postgres image installs the version versions.json pins, and the
// seeder's schema for it holds the SQLite schema's tables.
func TestPostgresImagePinsVersionsJSON(t *testing.T) {
	b, err := os.ReadFile("../versions.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Images map[string]string `json:"images"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	want := v.Images["postgresql-15"]
	if want == "" {
		t.Fatal("versions.json: no images.postgresql-15")
	}
	df, err := os.ReadFile("postgres/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"postgresql-15", "postgresql-client-15"} {
		if !strings.Contains(string(df), pkg+"="+want+" ") {
			t.Errorf("stacks/postgres/Dockerfile: %s is not pinned at %s (versions.json)", pkg, want)
		}
	}
	for _, table := range []string{"CREATE TABLE items", "CREATE TABLE bench_events"} {
		if !strings.Contains(Schema, table) || !strings.Contains(SchemaPostgres, table) {
			t.Errorf("%q: not in both schemas", table)
		}
	}
}
