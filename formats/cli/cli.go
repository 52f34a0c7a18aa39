// Package cli holds the command-line conventions every probe shares: -h
// prints the usage with examples on stdout and exits 0; a bad flag is one line
// on stderr naming it, exit 2; a failure is one line, exit 1; sizes print in
// binary units.
package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Parse parses args into fs. usage is printed for -h, followed by the flags.
func Parse(fs *flag.FlagSet, args []string, usage string) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(os.Stdout, usage)
		fmt.Fprintln(os.Stdout, "\nFlags:")
		fs.SetOutput(os.Stdout)
		fs.PrintDefaults()
		os.Exit(0)
	}
	if err != nil {
		Usage(fs.Name(), "%v (see -h)", err)
	}
	if fs.NArg() > 0 {
		Usage(fs.Name(), "unexpected argument %q (see -h)", fs.Arg(0))
	}
}

// Usage reports bad input in one line and exits 2.
func Usage(prog, format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", prog, fmt.Sprintf(format, a...))
	os.Exit(2)
}

// Fail reports a failure in one line and exits 1.
func Fail(prog, format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", prog, fmt.Sprintf(format, a...))
	os.Exit(1)
}

// RequireDir reports --dir in one line (exit 2) unless dir is a directory.
func RequireDir(prog, dir string) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		Usage(prog, "--dir %s: not a directory", dir)
	}
}

// JSONLines opens --out for JSON lines: nil when path is "" (no --out).
// The caller closes the returned file, if any, when done.
func JSONLines(prog, path string) (*json.Encoder, io.Closer) {
	if path == "" {
		return nil, io.NopCloser(nil)
	}
	f, err := os.Create(path)
	if err != nil {
		Fail(prog, "--out: %v", err)
	}
	return json.NewEncoder(f), f
}

// Bytes formats n in binary units: "512 B", "4.0 KiB", "1.5 GiB".
func Bytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}
