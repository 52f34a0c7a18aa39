package main

// The lab's lock has an owner file, .work/bench.owner: its first line
// names the bench holding the lock ("pid PID, started TIME, writing
// ROOT"), and a "run DIR" line the results folder it opened, so that the
// next bench can tell a dead one's leftovers (reap.go reads it). Written
// here and read here, so its lines have one owner; the bench's bash only
// asks:
//
//	record own LABROOT --pid PID --results ROOT
//	    the owner file's first line, for the bench PID writing into ROOT
//	record new-dir ROOT --host H --study S [--label L] [--owner LABROOT]
//	    a new results folder ROOT/DATE-H-S[-L] (-2, -3, ... when taken)
//	    with its raw/ folder, printed; with --owner, named in the owner
//	    file's "run" line

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"stacklab/formats/rawfile"
)

// ownerFile is the owner file of the lab at root.
func ownerFile(root string) string { return filepath.Join(root, ".work", "bench.owner") }

func ownCmd(root string, args []string) error {
	fl := flag.NewFlagSet("record own", flag.ContinueOnError)
	pid := fl.Int("pid", 0, "the bench holding the lock")
	results := fl.String("results", "", "the results root it writes into")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *pid <= 0 || *results == "" {
		return fmt.Errorf("want --pid PID and --results ROOT")
	}
	line := fmt.Sprintf("pid %d, started %s, writing %s\n", *pid, time.Now().UTC().Format(time.RFC3339), *results)
	return rawfile.Write(ownerFile(root), []byte(line))
}

// newDir makes root's next results folder for host, study and label on
// day, with its raw/ folder, and returns its path.
func newDir(root, day, host, study, label string) (string, error) {
	base := filepath.Join(root, day+"-"+host+"-"+study)
	if label != "" {
		base += "-" + label
	}
	dir := base
	for n := 2; ; n++ {
		if _, err := os.Lstat(dir); os.IsNotExist(err) {
			break
		}
		dir = base + "-" + strconv.Itoa(n)
	}
	return dir, os.MkdirAll(filepath.Join(dir, "raw"), 0o755)
}

func newDirCmd(root string, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("record new-dir", flag.ContinueOnError)
	host := fl.String("host", "", "the host profile's name")
	study := fl.String("study", "", "the study's name")
	label := fl.String("label", "", "the bench's label")
	lab := fl.String("owner", "", "the lab's root: its owner file names the folder")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *host == "" || *study == "" {
		return fmt.Errorf("want --host H and --study S")
	}
	dir, err := newDir(root, time.Now().UTC().Format("2006-01-02"), *host, *study, *label)
	if err != nil {
		return err
	}
	if *lab != "" {
		// (the owner line kept, the run line after it, the file written whole)
		b, err := os.ReadFile(ownerFile(*lab))
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		if err := rawfile.Write(ownerFile(*lab), append(b, "run "+dir+"\n"...)); err != nil {
			return err
		}
	}
	fmt.Fprintln(out, dir)
	return nil
}
