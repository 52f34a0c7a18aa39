package latencyline

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver
)

// ReadOhaDB reads the SQLite file oha 1.16 writes with `--db-url FILE`:
// one row of table oha per answered request, with start, end and duration
// in seconds from oha's own start, and the status. Only those four columns
// are read, by name (the others differ between oha versions). oha keeps no
// row for a connection error, so every request read is an answer; a window
// whose every request failed reads as none, without error.
//
// The times come on oha's clock: the caller gives its start on the unix
// clock (record timeline --start-unix-ns).
func ReadOhaDB(path string) ([]Request, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: missing", path)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	// mode=ro: the file is evidence, and a database that is not there must
	// not be created empty.
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	defer db.Close()
	if err := oneRun(db); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	// [end]: a quoted "end" that names no column would be read as a string.
	rows, err := db.Query(`SELECT rowid, start, [end], duration, status FROM oha`)
	if err != nil {
		return nil, fmt.Errorf("%s: not an oha --db-url file: %v", path, err)
	}
	defer rows.Close()
	var out []Request
	for rows.Next() {
		var (
			id                    int64
			start, end, dur, code sql.NullFloat64
		)
		if err := rows.Scan(&id, &start, &end, &dur, &code); err != nil {
			return nil, fmt.Errorf("%s: row %d: %v", path, id, err)
		}
		r, err := ohaRow(start, end, dur, code)
		if err != nil {
			return nil, fmt.Errorf("%s: table oha, row %d: %v", path, id, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}

// ohaSlack is how far duration may stray from end - start: the floats'
// rounding, not a different meaning (a version that counted from the
// scheduled start would differ by the wait, and be caught).
const ohaSlack = 1e-6 // seconds

func ohaRow(start, end, dur, code sql.NullFloat64) (Request, error) {
	if !start.Valid || !end.Valid || !dur.Valid || !code.Valid {
		return Request{}, errors.New("a NULL in start, end, duration or status")
	}
	for _, v := range []float64{start.Float64, end.Float64, dur.Float64} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Request{}, errors.New("a time is not a number")
		}
	}
	switch {
	case start.Float64 < 0 || end.Float64 < start.Float64:
		return Request{}, fmt.Errorf("start %g s, end %g s: not 0 <= start <= end", start.Float64, end.Float64)
	case math.Abs(end.Float64-start.Float64-dur.Float64) > ohaSlack:
		return Request{}, fmt.Errorf("duration %g s is not end - start (%g s)", dur.Float64, end.Float64-start.Float64)
	case code.Float64 != math.Trunc(code.Float64) || code.Float64 < 100 || code.Float64 > 599:
		return Request{}, fmt.Errorf("status %g is not an HTTP status", code.Float64)
	}
	return Request{
		StartNs: int64(math.Round(start.Float64 * 1e9)),
		EndNs:   int64(math.Round(end.Float64 * 1e9)),
		Status:  int(code.Float64),
	}, nil
}

// oneRun refuses a file that holds several oha runs: since 1.9 oha appends
// to an existing table (with a run column, its unix second), and two
// windows' requests on one clock would read as one. Versions without the
// column wrote a new table each time.
func oneRun(db *sql.DB) error {
	var has int
	if err := db.QueryRow(`SELECT count(*) FROM pragma_table_info('oha') WHERE name = 'run'`).Scan(&has); err != nil {
		return fmt.Errorf("not an oha --db-url file: %v", err)
	}
	if has == 0 {
		return nil
	}
	var runs int
	if err := db.QueryRow(`SELECT count(DISTINCT run) FROM oha`).Scan(&runs); err != nil {
		return fmt.Errorf("not an oha --db-url file: %v", err)
	}
	if runs > 1 {
		return fmt.Errorf("table oha holds %d runs (oha appends to a reused file): give each window its own --db-url file", runs)
	}
	return nil
}
