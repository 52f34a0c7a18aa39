package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"stacklab/analysis/manifest"
)

// record differences: how this host differs from the run in DIR, for
// scripts/rerun. Bash gathers this host's facts (it drives Docker and the
// tools); every judgement on them is made here, in steps, because each
// needs what bash did after the one before:
//
//	record differences DIR --gather
//	    "image NAME" for each image to build and check, "tool NAME" for each
//	    tool to build first; a build variant's image gets a note, unchecked
//	record differences DIR --have FILE --digests
//	    the images whose files bash must digest: only those whose id is not
//	    the run's, since reading an image's files is a docker export
//	record differences DIR --have FILE --note NAME
//	    a note when the image NAME has another id but the run's files (bash
//	    asks after each digest, so the note comes before the next export)
//	record differences DIR --have FILE [--engines FILE] [--anyway]
//	    how this host differs (host, images, tools); exit 1 to stop there
//	    unless --anyway; "cross-host" when compare must be told
//
// FILE holds this host's facts, one a line: "image NAME ID" (ID none: not
// on this engine), "files NAME DIGEST" (no DIGEST: its files could not be
// read) and "tool NAME VERSION". Bad input is one line, exit 2.
func differencesCmd(dir string, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("record differences", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {} // the flag package's own line is enough
	gather := fl.Bool("gather", false, "the images and tools a re-run needs")
	digests := fl.Bool("digests", false, "the images whose files to digest")
	noteOn := fl.String("note", "", "an image: a note when it has another id but the run's files")
	haveFile := fl.String("have", "", "this host's facts")
	enginesFile := fl.String("engines", "", "this host's engines now (record engine's file)")
	anyway := fl.Bool("anyway", false, "re-run despite differences")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "record differences:", err)
		return 2
	}
	steps := 0 // of --digests, --note, and the verdict's flags: one at most
	for _, on := range []bool{*digests, *noteOn != "", *enginesFile != "" || *anyway} {
		if on {
			steps++
		}
	}
	if fl.NArg() != 0 || (*haveFile == "") != *gather || steps > 1 {
		return fail(fmt.Errorf("want DIR --gather, or DIR --have FILE [--digests | --note NAME | [--engines FILE] [--anyway]]"))
	}
	m, err := manifest.Read(dir)
	if err != nil {
		return fail(err)
	}
	if *gather {
		printGather(m, stdout, stderr)
		return 0
	}
	have, err := readFacts(*haveFile)
	if err == nil {
		switch {
		case *digests:
			err = printDigests(m, have, *haveFile, stdout)
		case *noteOn != "":
			err = printNote(m, *noteOn, have, *haveFile, stderr)
		default:
			var refused bool
			if refused, err = printVerdict(m, dir, have, *haveFile, *enginesFile, *anyway, stdout, stderr); refused {
				return 1
			}
		}
	}
	if err != nil {
		return fail(err)
	}
	return 0
}

func printGather(m *manifest.Manifest, stdout, stderr io.Writer) {
	images, tools, variantNotes := gatherPlan(m)
	printLines(stderr, variantNotes)
	for _, name := range images {
		fmt.Fprintln(stdout, "image", name)
	}
	for _, name := range tools {
		fmt.Fprintln(stdout, "tool", name)
	}
}

func printDigests(m *manifest.Manifest, have hostFacts, file string, stdout io.Writer) error {
	names, err := digestsNeeded(m, have, file)
	printLines(stdout, names)
	return err
}

func printNote(m *manifest.Manifest, name string, have hostFacts, file string, stderr io.Writer) error {
	if images, _, _ := gatherPlan(m); !slices.Contains(images, name) {
		return fmt.Errorf("--note %s: not an image this run's re-run checks (%s)", name, strings.Join(images, ", "))
	}
	note, _, err := judgeImage(m, name, have, file)
	if note != "" {
		fmt.Fprintln(stderr, note)
	}
	return err
}

// printVerdict says how this host differs from the run, and whether the
// re-run stops there (refused).
func printVerdict(m *manifest.Manifest, dir string, have hostFacts, file, enginesFile string, anyway bool, stdout, stderr io.Writer) (refused bool, err error) {
	here, err := thisHost(m, enginesFile)
	if err != nil {
		return false, err
	}
	v, err := judge(m, have, here, file)
	if err != nil {
		return false, err
	}
	if len(v.differences) > 0 {
		fmt.Fprintf(stderr, "rerun: this host differs from %s:\n", filepath.Base(dir))
		for _, d := range v.differences {
			fmt.Fprintln(stderr, " ", d)
		}
		if !anyway {
			fmt.Fprintln(stderr, "rerun: not re-running with other images or tools; pass --anyway to do it and compare regardless")
			return true, nil
		}
		fmt.Fprintln(stderr, "rerun: --anyway given, re-running regardless")
	}
	if v.crossHost {
		// compare refuses two hosts in one table unless told
		fmt.Fprintln(stdout, "cross-host")
	}
	return false, nil
}

func printLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// builtOnDemand are the tools bootstrap builds only when a study first
// needs one (tool_ensure, scripts/lib/tools.sh): a re-run builds those the
// run used, so that they count as this host's.
var builtOnDemand = []string{"vegeta", "scc", "k6"}

// buildVariant tells a build variant's image (stack[name]): the re-run's
// bench builds it from the study's arguments, so it is not checked here.
func buildVariant(name string) bool { return strings.Contains(name, "[") }

// gatherPlan names, sorted, the run's images a re-run builds and checks,
// the tools it builds first, and a note for each image it leaves unchecked.
func gatherPlan(m *manifest.Manifest) (images, tools, notes []string) {
	for _, name := range slices.Sorted(maps.Keys(m.Images)) {
		if buildVariant(name) {
			notes = append(notes, fmt.Sprintf("rerun: image %s is a build variant's: the re-run builds it from the study, unchecked against the run's %s",
				name, head(m.Images[name].ID, 19)))
			continue
		}
		images = append(images, name)
	}
	for _, name := range builtOnDemand {
		if v := m.Tools[name]; v != "" && v != "none" {
			tools = append(tools, name)
		}
	}
	return images, tools, notes
}

// needsDigest: an image here under another id may still hold the run's
// files (a Dockerfile build stamps times into its layers); only the files'
// digest can tell, when the run recorded one and this engine has the image.
func needsDigest(run manifest.Image, id string) bool {
	return id != run.ID && id != "none" && run.Digest != ""
}

func digestsNeeded(m *manifest.Manifest, have hostFacts, file string) ([]string, error) {
	images, _, _ := gatherPlan(m)
	var names []string
	for _, name := range images {
		id, ok := have.ids[name]
		if !ok {
			return nil, fmt.Errorf("%s: no image line for %s", file, name)
		}
		if needsDigest(m.Images[name], id) {
			names = append(names, name)
		}
	}
	return names, nil
}

// verdict is how this host differs from a run: notes on what counts as the
// same nonetheless, and differences (host, then images, then tools).
type verdict struct {
	notes       []string
	differences []string
	crossHost   bool
}

func judge(m *manifest.Manifest, have hostFacts, here manifest.Host, file string) (verdict, error) {
	var v verdict
	if !manifest.SameFingerprint(m.Host, here) {
		v.crossHost = true
		v.differences = append(v.differences, fmt.Sprintf("host: the run was on %s; this host is %s", hostLine(m.Host), hostLine(here)))
	}
	images, _, _ := gatherPlan(m)
	for _, name := range images {
		note, difference, err := judgeImage(m, name, have, file)
		if err != nil {
			return v, err
		}
		if note != "" {
			v.notes = append(v.notes, note)
		}
		if difference != "" {
			v.differences = append(v.differences, difference)
		}
	}
	for _, t := range have.tools {
		if want := m.Tools[t.name]; want != "" && t.version != want {
			v.differences = append(v.differences, fmt.Sprintf("tool %s: the run used %s, this host has %s", t.name, want, t.version))
		}
	}
	return v, nil
}

// judgeImage compares the image name here with the run's: nothing when it
// is the run's, a note when only its id differs, else a difference.
func judgeImage(m *manifest.Manifest, name string, have hostFacts, file string) (note, difference string, err error) {
	run := m.Images[name]
	id, ok := have.ids[name]
	if !ok {
		return "", "", fmt.Errorf("%s: no image line for %s", file, name)
	}
	if id == run.ID {
		return "", "", nil
	}
	why := "other files"
	if needsDigest(run, id) {
		digest, ok := have.files[name]
		if !ok {
			return "", "", fmt.Errorf("%s: no files line for %s, whose id is not the run's (--digests names it)", file, name)
		}
		if digest == run.Digest {
			return fmt.Sprintf("rerun: image %s: another id (%s) but the same files as the run's (%s)",
				name, head(id, 19), head(run.Digest, 25)), "", nil
		}
	} else if run.Digest == "" {
		why = "the run recorded no file digest to check"
	}
	return "", fmt.Sprintf("image %s: the run used %s, this host has %s (%s)", name, head(run.ID, 19), head(id, 19), why), nil
}

// thisHost is this machine as the run's host profile sees it, with its
// engines now when the run recorded engines of its own.
func thisHost(m *manifest.Manifest, enginesFile string) (manifest.Host, error) {
	fp, err := fingerprint()
	if err != nil {
		return manifest.Host{}, err
	}
	here := manifest.Host{Profile: m.Host.Profile, Fingerprint: fp}
	if enginesFile != "" {
		if here.Engines, err = manifest.ReadEngines(enginesFile); err != nil {
			return manifest.Host{}, err
		}
	}
	return here, nil
}

// hostFacts is what bash found on this host.
type hostFacts struct {
	ids   map[string]string // image: its id here, or none
	files map[string]string // image: its files' digest, for those --digests named
	tools []toolVersion     // in the order bash listed them
}

type toolVersion struct{ name, version string }

func readFacts(path string) (hostFacts, error) {
	have := hostFacts{ids: map[string]string{}, files: map[string]string{}}
	f, err := os.Open(path)
	if err != nil {
		return have, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		bad := func(want string) error { return fmt.Errorf("%s: line %d: %q: want %s", path, n, sc.Text(), want) }
		switch fields[0] {
		case "image":
			if len(fields) != 3 {
				return have, bad("image NAME ID")
			}
			have.ids[fields[1]] = fields[2]
		case "files":
			if len(fields) < 2 || len(fields) > 3 {
				return have, bad("files NAME [DIGEST]")
			}
			have.files[fields[1]] = strings.Join(fields[2:], "")
		case "tool":
			if len(fields) < 2 {
				return have, bad("tool NAME [VERSION]")
			}
			have.tools = append(have.tools, toolVersion{fields[1], strings.Join(fields[2:], " ")})
		default:
			return have, bad("image, files or tool")
		}
	}
	if err := sc.Err(); err != nil {
		return have, fmt.Errorf("%s: %w", path, err)
	}
	return have, nil
}

// head is s's first n bytes, as bash's ${s:0:n}.
func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
