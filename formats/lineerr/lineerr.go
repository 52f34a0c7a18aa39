// Package lineerr owns the one error every line-by-line raw format of the
// lab returns for a line it cannot read (the cgroup timeline, the hiccup
// log, the latency timeline, vegeta's CSV): the file, the line, and
// whether the file was cut short or a line is corrupt, so a reader can
// keep what came before a cut and refuse a corrupt file in one line.
package lineerr

import (
	"errors"
	"fmt"
)

// How a file is cut short (Error.Truncated).
const (
	LastLine = "truncated last line" // the last line has no newline and does not parse
	CutOff   = "last line cut off"   // killed in the middle of a write
	NoEnd    = "no end line"         // every line whole, but the writer never wrote its end
)

// ErrTruncated matches (errors.Is) an Error whose file was cut short.
var ErrTruncated = errors.New("truncated")

// Error names the file and line that cannot be read.
type Error struct {
	File string
	Line int
	// Truncated says how the file was cut short (LastLine, CutOff,
	// NoEnd), "" when a line is corrupt: every line before it is good.
	Truncated string
	Err       error
}

func (e *Error) Error() string {
	what := "corrupt line"
	if e.Truncated != "" {
		what = e.Truncated
	}
	if e.Err == nil {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, what)
	}
	return fmt.Sprintf("%s:%d: %s: %v", e.File, e.Line, what, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrTruncated) true for a file cut short.
func (e *Error) Is(target error) bool { return target == ErrTruncated && e.Truncated != "" }

// Cut is LastLine when complete is false (the last line had no newline),
// "" otherwise: the Truncated of a line that does not parse.
func Cut(complete bool) string {
	if complete {
		return ""
	}
	return LastLine
}
