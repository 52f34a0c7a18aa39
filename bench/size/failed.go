package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"stacklab/analysis/sizes"
)

// results are what each measure leaves in OUT when it is taken.
var results = map[string]string{"code": sizes.CodeFile, "deps": sizes.DepsDir, "image": sizes.ImageFile, "build": sizes.BuildFile}

// failed: size failed OUT MEASURE [--line LINE [--log FILE]] (the
// header says what it answers). Every measure not taken leaves its
// .error, so that summarize names what is missing rather than stopping
// at a file that is not there.
func failed(args []string, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		return fmt.Errorf("want OUT MEASURE")
	}
	out, measure := args[0], args[1]
	result, ok := results[measure]
	if !ok {
		return fmt.Errorf("%q is no measure (code, deps, image, build)", measure)
	}
	fl := flag.NewFlagSet("size failed", flag.ContinueOnError)
	line := fl.String("line", "", "why the measure was not taken")
	logFile := fl.String("log", "", "the failed build's output, kept beside the .error")
	if err := fl.Parse(args[2:]); err != nil {
		return err
	}
	errFile := filepath.Join(out, measure+".error")
	if *line == "" {
		if *logFile != "" {
			return fmt.Errorf("--log goes with --line")
		}
		if st, err := os.Stat(errFile); err == nil && st.Mode().IsRegular() {
			_, err := fmt.Fprintln(stdout, "SIZE_TAKEN=0")
			return err
		}
		if _, err := os.Stat(filepath.Join(out, result)); err == nil {
			_, err := fmt.Fprintln(stdout, "SIZE_TAKEN=1")
			return err
		}
		*line = stackName(out) + ": " + measure + ": lab_tool size failed (its message above)"
	}
	if err := os.WriteFile(errFile, []byte(*line+"\n"), 0o644); err != nil {
		return err
	}
	if *logFile != "" {
		b, err := os.ReadFile(*logFile)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, measure+".log"), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintln(stderr, "bench: "+*line)
	_, err := fmt.Fprintln(stdout, "SIZE_TAKEN=0")
	return err
}
