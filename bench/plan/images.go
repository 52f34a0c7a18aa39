package main

// Which images a bench needs, and when each is built, decided here. Bash
// hands over what only Docker knows (the images it has, and the rows'
// tags, which the stack program makes from Docker's ids and the
// toolchains), runs scripts/images on the lists this prints, and builds a
// late stack's image before that stack's first session (late_image).

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"stacklab/analysis/stackenv"
	"stacklab/analysis/study"
)

// ImageNeeds is what decides a bench's images.
type ImageNeeds struct {
	Stacks     []string        // the rows' stacks, each once, in row order
	Native     bool            // the stacks are built and run on this machine: none of their images
	Upstream   bool            // the mock upstream runs: a case waits on it, or the generator's headroom is measured against it
	Postgres   bool            // a row runs on the Postgres server role
	LateImages bool            // the profile's late_images
	OhaLater   bool            // oha is still compiling (scripts/bootstrap --oha-later)
	Own        map[string]bool // stacks whose stack.env names an IMAGE built elsewhere
	Built      map[string]bool // stacks whose tag is among the images Docker has
}

// ImagePlan is which images a bench builds, and when.
type ImagePlan struct {
	Native   []string // the stacks built natively, in row order (the native mode)
	Now      []string // built before the first row, in row order, then the roles
	Late     []string // built just before their stack's first session, in row order
	WhileOha string   // Late's first when it is the first row's: built while oha compiles
}

// PlanImages decides a bench's images. Every stack's image is built
// before the first row (scripts/images keeps one whose inputs have not
// changed), then the mock upstream's and the Postgres role's when they run.
// With late_images (the quick profile) a stack whose image is neither
// built nor its own (IMAGE) waits for its first session instead, so that
// a first look on a fresh machine prints its first row after one build,
// not nine; and while oha compiles, the first row's stack, when it waits,
// is built meanwhile (on success the bench moves it to Now). Natively the
// stacks are built on this machine, and only the roles' images are
// needed.
func PlanImages(n ImageNeeds) ImagePlan {
	var p ImagePlan
	stacks := n.Stacks
	if n.Native {
		p.Native, stacks = n.Stacks, nil
	}
	for _, s := range stacks {
		if n.LateImages && !n.Own[s] && !n.Built[s] {
			p.Late = append(p.Late, s)
		} else {
			p.Now = append(p.Now, s)
		}
	}
	if n.Upstream {
		p.Now = append(p.Now, "upstream")
	}
	if n.Postgres {
		p.Now = append(p.Now, "postgres")
	}
	if n.OhaLater && len(p.Late) > 0 && p.Late[0] == n.Stacks[0] {
		p.WhileOha = p.Late[0]
	}
	return p
}

// imagesCmd prints the images plan of the bench's rows as KEY=VALUE lines
// for bash's assign_lines: NATIVE, NOW and LATE (names separated by
// spaces) and WHILE_OHA.
func imagesCmd(path string, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("images", flag.ContinueOnError)
	rows := fl.String("rows", "", "the bench's rows, comma-separated")
	conns := fl.Int("connections", defaultConnections, "the host profile's default connections")
	root := fl.String("lab-root", "", "the lab's folder (stacks/ under it)")
	extra := fl.String("extra-stacks", "", "another folder of stack folders")
	mode := fl.String("mode", "docker", "docker, or native: the stacks built and run on this machine")
	late := fl.Int("late-images", 0, "1: the profile's late_images")
	oha := fl.Int("oha-later", 0, "1: oha is still compiling")
	tags := fl.String("tags", "", `the rows' tags, "NAME TAG" a line (stack tags)`)
	images := fl.String("images", "", "the images Docker has, REPOSITORY:TAG a line")
	if err := parseFlags("images", args, fl); err != nil {
		return err
	}
	if *rows == "" {
		return &usageError{"want --rows a,b"}
	}
	if *mode != "docker" && *mode != "native" {
		return &usageError{fmt.Sprintf("--mode %q: want docker or native", *mode)}
	}
	s, err := study.Load(path)
	if err != nil {
		return err
	}
	n := ImageNeeds{
		Native:     *mode == "native",
		Upstream:   needsUpstream(s) || Headroom(s.Windows(*conns)),
		LateImages: *late == 1,
		OhaLater:   *oha == 1,
		Own:        map[string]bool{},
		Built:      map[string]bool{},
	}
	// the same stacks the stack program reads (bash's stack_tool)
	lab := stackenv.Lab{Root: strings.TrimSuffix(*root, "/"), Extra: []string{*extra}}
	for _, r := range list(*rows) {
		if s.DatabaseOf(r) == study.DatabasePostgres {
			n.Postgres = true
		}
		st := s.StackOf(r)
		if contains(n.Stacks, st) {
			continue
		}
		n.Stacks = append(n.Stacks, st)
		d, err := lab.Read(st)
		if err != nil {
			return err
		}
		n.Own[st] = d.OwnImage() != ""
	}
	have, err := fileLines(*images)
	if err != nil {
		return err
	}
	tagLines, err := fileLines(*tags)
	if err != nil {
		return err
	}
	for _, l := range tagLines {
		if name, tag, ok := strings.Cut(l, " "); ok && contains(have, tag) {
			n.Built[name] = true
		}
	}
	p := PlanImages(n)
	fmt.Fprintf(out, "NATIVE=%s\nNOW=%s\nLATE=%s\nWHILE_OHA=%s\n",
		strings.Join(p.Native, " "), strings.Join(p.Now, " "), strings.Join(p.Late, " "), p.WhileOha)
	return nil
}

// fileLines is the lines of a file (none when path is "").
func fileLines(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}
