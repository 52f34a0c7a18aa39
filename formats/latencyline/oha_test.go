package latencyline

import (
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testdata/oha.schema.sql is the table of a real oha 1.16.0 --db-url file
// (testdata/versions.txt), kept by testdata/capture; the db itself is not.
// ohaOldSchema is oha 1.4's (src/db.rs at v1.4.6): no url, no run.
const ohaOldSchema = `CREATE TABLE oha (
	start REAL NOT NULL,
	start_latency_correction REAL,
	end REAL NOT NULL,
	duration REAL NOT NULL,
	status INTEGER NOT NULL,
	len_bytes INTEGER NOT NULL
)`

// ohaDB creates a db at a temporary path with schema and runs the inserts.
func ohaDB(t *testing.T, schema string, inserts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "window.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range append([]string{schema}, inserts...) {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return path
}

func realSchema(t *testing.T) string {
	b, err := os.ReadFile("testdata/oha.schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadOhaDB(t *testing.T) {
	want := []Request{
		{StartNs: 1_000_000, EndNs: 3_500_000, Status: 200},
		{StartNs: 3_600_000, EndNs: 303_600_000, Status: 500},
	}
	for name, path := range map[string]string{
		"1.16": ohaDB(t, realSchema(t),
			`INSERT INTO oha VALUES ('http://127.0.0.1:18411/', 0.001, NULL, 0.0035, 0.0025, 200, 2, 1796161135)`,
			`INSERT INTO oha VALUES ('http://127.0.0.1:18411/', 0.0036, NULL, 0.3036, 0.3, 500, 4, 1796161135)`),
		"1.4": ohaDB(t, ohaOldSchema,
			`INSERT INTO oha VALUES (0.001, NULL, 0.0035, 0.0025, 200, 2)`,
			`INSERT INTO oha VALUES (0.0036, NULL, 0.3036, 0.3, 500, 4)`),
	} {
		got, err := ReadOhaDB(path)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("oha %s schema: %+v, %v; want %+v", name, got, err, want)
		}
	}
	// Every request failed: oha stores no row, and that is no error.
	if got, err := ReadOhaDB(ohaDB(t, realSchema(t))); err != nil || len(got) != 0 {
		t.Errorf("empty table: %v, %v", got, err)
	}
}

// Each bad db is one error that names the file and what is wrong.
func TestReadOhaDBRefuses(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notadb.db")
	os.WriteFile(text, []byte("this is not SQLite, it is a log line\n"), 0o644)
	row := `INSERT INTO oha VALUES ('u', 0.5, NULL, 0.4, -0.1, 200, 2, 1)`
	for _, c := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nosuch.db"), "missing"},
		{"not a database", text, "not an oha --db-url file"},
		{"no table", ohaDB(t, `CREATE TABLE other (x INTEGER)`), "no such table: oha"},
		{"no column", ohaDB(t, `CREATE TABLE oha (start REAL, duration REAL, status INTEGER)`), "no such column"},
		{"end before start", ohaDB(t, realSchema(t), row), "row 1: start 0.5 s, end 0.4 s"},
		{"duration", ohaDB(t, realSchema(t), `INSERT INTO oha VALUES ('u', 0.1, NULL, 0.2, 0.5, 200, 2, 1)`), "duration 0.5 s is not end - start"},
		{"status", ohaDB(t, realSchema(t), `INSERT INTO oha VALUES ('u', 0.1, NULL, 0.2, 0.1, 0, 2, 1)`), "status 0 is not an HTTP status"},
		{"two runs", ohaDB(t, realSchema(t),
			`INSERT INTO oha VALUES ('u', 0.1, NULL, 0.2, 0.1, 200, 2, 1796161135)`,
			`INSERT INTO oha VALUES ('u', 0.1, NULL, 0.2, 0.1, 200, 2, 1796161150)`), "holds 2 runs"},
	} {
		_, err := ReadOhaDB(c.path)
		if err == nil || !strings.HasPrefix(err.Error(), c.path+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q, naming %s", c.name, err, c.want, c.path)
		}
	}
	// Read-only: a missing file is not created.
	if _, err := os.Stat(filepath.Join(dir, "nosuch.db")); !os.IsNotExist(err) {
		t.Errorf("ReadOhaDB created the missing file: %v", err)
	}
}
