// Command stack answers bash's questions about the lab's stacks, so that
// no script sources a stack.env or decides which folders are stacks
// (package stackenv owns both):
//
//	stack [--lab-root DIR] [--extra-stacks DIR] build-order NAME...
//	    NAME... and what each is built on (DEPENDS), dependencies first,
//	    each once: the order scripts/images builds them in
//	stack ... names
//	    the stacks, one a line (base and upstream are not stacks)
//	stack ... check NAME
//	    nothing when NAME is one of the stacks; else one line and exit 2
//	stack ... dir NAME
//	    the folder of stack NAME (stacks/NAME, else the extra folder's)
//	stack ... get NAME KEY
//	    the value of KEY in NAME's stack.env, empty when not stated
//	stack ... contract NAME
//	    what NAME is held to: app (docs/app.md, verify) or none
//	stack ... ready-path NAME
//	    the path whose first 200 says NAME's app is up (READY_PATH, else /up)
//	stack ... data NAME
//	    the file or folder of NAME's own data (DATA), copied in place of the
//	    lab's seeded app.db; nothing when it names none; one line and exit
//	    2 when DATA is not inside its folder
//	stack ... app-env NAME PORT UPSTREAM_URL CPUS [DATA]
//	    the environment the lab gives NAME's app, K=V a line: the lab's own
//	    variables, then what NAME's ENV adds with the lab's values put in
//	    (DATA: the data folder, /data in a container)
//	stack ... tag NAME [--build-args "K=V lines"]
//	    NAME's image tag, stacklab/NAME:<hash of its inputs>
//	stack ... image NAME [--build-args "K=V lines"]
//	    the image NAME runs and the line to die with when Docker lacks it:
//	    TAG= (its IMAGE, else its tag) and MISSING=, for bash to assign
//	stack ... tags NAME...
//	    "NAME TAG" a line for each NAME the lab builds, each once, in the
//	    order given (none for a stack whose IMAGE names an image built
//	    elsewhere): what plan images compares with the images Docker has;
//	    a tag that cannot be made is its line on stderr, the others still
//	    printed, exit 2
//	stack ... host-packages NAME
//	    what to do about the Debian packages NAME's native build needs on
//	    the host (NATIVE_PACKAGES, at its Dockerfile's versions), a line
//	    each: "install name=version" when dpkg has none, "keep name have
//	    want" when it has another version (the host's packages are the
//	    machine's), nothing when it has that one
//	stack ... build-plan NAME [--build-args "K=V lines"]
//	    how scripts/images builds NAME's image, KEY=VALUE lines for bash
//	    to assign: ELSEWHERE=1 and TAG= for an IMAGE built elsewhere;
//	    else ELSEWHERE=0 and PROBLEM= (the arguments its BUILD_ARGS does
//	    not declare, said in one line: the caller says where they came
//	    from), or TAG=, ARGS= (" with K=V ..." for its notes) and LOG=
//	    (the build log's file name)
//	stack ... build-env NAME [--build-args "K=V lines"] [--base TAG]
//	    env's arguments for NAME's build-image, one a line: -u and each
//	    name its BUILD_ARGS declares, the arguments given, then
//	    BASE_IMAGE= (base's tag, TAG when given, when DEPENDS names base)
//	stack ... postgres-settings
//	    the Postgres role's settings file (stacks/postgres/postgresql.conf),
//	    its lines without comments and blanks, joined by "; ": the
//	    manifest's postgres_settings
//	stack ... postgres-version
//	    the postgresql-15 version the role's image pins (its packages.txt):
//	    the manifest's postgres_version
//	stack ... confine [--unconfined VALUE] [NAME]
//	    the docker run flags of the lab's confinement (package confine),
//	    one a line: with NAME, a tmpfs for each of its SCRATCH dirs too;
//	    none when VALUE (LAB_UNCONFINED's) is 1
//	stack ... confine-ids
//	    CONFINE_USER=UID:GID (who the app runs as, its data handed to it)
//	    and CONFINE_PIDS_LIMIT=N, for bash to assign
//	stack ... verify-rows ROW...
//	    "ROW STACK DATABASE" a line for each of scripts/verify's rows: a
//	    stack on SQLite, or STACK[pg] on Postgres for a stack whose
//	    DATABASES names it; else the first bad row's one line, exit 2
//
// Bad input (no such stack, a stack.env that does not read, a key the lab
// does not know, a missing input): one line naming the file, exit 2.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"stacklab/analysis/confine"
	"stacklab/analysis/stackenv"
	"stacklab/analysis/study"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("stack", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	root := fl.String("lab-root", ".", "the lab's folder (stacks/ under it)")
	extra := fl.String("extra-stacks", "", "another folder of stack folders")
	usage := "usage: stack [--lab-root DIR] [--extra-stacks DIR] build-order NAME...|names|check NAME|dir NAME|get NAME KEY|contract NAME|ready-path NAME|data NAME|app-env NAME PORT UPSTREAM_URL CPUS [DATA]|host-packages NAME|tag NAME [--build-args LINES]|tags NAME...|image NAME [--build-args LINES]|build-plan NAME [--build-args LINES]|build-env NAME [--build-args LINES] [--base TAG]|postgres-settings|postgres-version|confine [--unconfined VALUE] [NAME]|confine-ids|verify-rows ROW..."
	if err := fl.Parse(args); err != nil {
		fmt.Fprintf(stderr, "stack: %v (%s)\n", err, usage)
		return 2
	}
	lab := stackenv.Lab{Root: strings.TrimSuffix(*root, "/"), Extra: []string{*extra}, ImageID: imageID}
	lab.Toolchain = func(name string) string { return toolchainVersion(lab.Root, name) }
	rest := fl.Args()
	if len(rest) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	want := map[string]int{"build-order": -1, "names": 0, "check": 1, "dir": 1, "get": 2, "contract": 1, "ready-path": 1, "data": 1, "app-env": 4, "host-packages": 1, "tag": 1, "tags": -1, "image": 1,
		"build-plan": 1, "build-env": 1, "postgres-settings": 0, "postgres-version": 0, "confine": 0, "confine-ids": 0, "verify-rows": -1}
	n, ok := want[rest[0]]
	if !ok {
		fmt.Fprintf(stderr, "stack: unknown subcommand %q (%s)\n", rest[0], usage)
		return 2
	}
	var buildArgs, base string
	switch rest[0] {
	case "tag", "image", "build-plan", "build-env":
		tf := flag.NewFlagSet(rest[0], flag.ContinueOnError)
		tf.SetOutput(io.Discard)
		tf.StringVar(&buildArgs, "build-args", "", "a build variant's arguments")
		if rest[0] == "build-env" {
			tf.StringVar(&base, "base", "", "base's tag, when the caller fixed it")
		}
		if len(rest) > 1 {
			if err := tf.Parse(rest[2:]); err != nil || tf.NArg() > 0 {
				fmt.Fprintf(stderr, "stack %s: bad arguments %q (%s)\n", rest[0], rest[2:], usage)
				return 2
			}
			rest = rest[:2]
		}
	}
	var unconfined string
	if rest[0] == "confine" {
		cf := flag.NewFlagSet("confine", flag.ContinueOnError)
		cf.SetOutput(io.Discard)
		cf.StringVar(&unconfined, "unconfined", "", "LAB_UNCONFINED's value: 1 drops every flag")
		if err := cf.Parse(rest[1:]); err != nil || cf.NArg() > 1 {
			fmt.Fprintf(stderr, "stack confine: bad arguments %q (%s)\n", rest[1:], usage)
			return 2
		}
		rest = append(rest[:1], cf.Args()...)
		n = len(rest) - 1 // a stack's name, or none (upstream, Postgres)
	}
	if rest[0] == "app-env" && len(rest) == 6 {
		n = 5 // the data folder, when not a container's /data
	}
	if n == -1 && len(rest) > 1 {
		n = len(rest) - 1 // one name or more
	}
	if len(rest)-1 != n {
		fmt.Fprintf(stderr, "stack %s: takes %d arguments (%s)\n", rest[0], n, usage)
		return 2
	}
	var err error
	switch rest[0] {
	case "build-order":
		var order []string
		if order, err = lab.BuildOrder(rest[1:]); err == nil {
			for _, name := range order {
				fmt.Fprintln(stdout, name)
			}
		}
	case "names":
		for _, s := range lab.Names() {
			fmt.Fprintln(stdout, s)
		}
	case "check":
		err = lab.Check(rest[1])
	case "dir":
		fmt.Fprintln(stdout, lab.Dir(rest[1]))
	case "get":
		var s *stackenv.Stack
		if s, err = lab.Read(rest[1]); err == nil {
			var v string
			if v, err = s.Get(rest[2]); err == nil {
				fmt.Fprintln(stdout, v)
			}
		}
	case "contract":
		var s *stackenv.Stack
		if s, err = lab.Read(rest[1]); err == nil {
			fmt.Fprintln(stdout, s.Contract())
		}
	case "ready-path":
		var s *stackenv.Stack
		if s, err = lab.Read(rest[1]); err == nil {
			fmt.Fprintln(stdout, s.ReadyPath())
		}
	case "data":
		var s *stackenv.Stack
		var src string
		if s, err = lab.Read(rest[1]); err == nil {
			if src, err = s.DataSource(); err == nil && src != "" {
				fmt.Fprintln(stdout, src)
			}
		}
	case "app-env":
		var s *stackenv.Stack
		var env []string
		cpus, cerr := strconv.Atoi(rest[4])
		if cerr != nil || cpus < 1 {
			fmt.Fprintf(stderr, "stack app-env: CPUS %q: want a count of 1 or more\n", rest[4])
			return 2
		}
		if s, err = lab.Read(rest[1]); err == nil {
			data := "/data"
			if len(rest) == 6 {
				data = rest[5]
			}
			if env, err = s.AppEnv(rest[2], rest[3], cpus, data); err == nil {
				for _, kv := range env {
					fmt.Fprintln(stdout, kv)
				}
			}
		}
	case "host-packages":
		var s *stackenv.Stack
		var pkgs []string
		if s, err = lab.Read(rest[1]); err == nil {
			if pkgs, err = s.HostPackages(); err == nil {
				for _, line := range hostPackageSteps(pkgs, dpkgVersion) {
					fmt.Fprintln(stdout, line)
				}
			}
		}
	case "image":
		var im stackenv.Image
		if im, err = lab.Image(rest[1], strings.Split(buildArgs, "\n")); err == nil {
			fmt.Fprintf(stdout, "TAG=%s\nMISSING=%s\n", im.Tag, im.Missing)
		}
	case "build-plan":
		var b stackenv.Build
		if b, err = lab.BuildPlan(rest[1], buildArgs); err == nil {
			printBuild(b, stdout)
		}
	case "build-env":
		var env []string
		if env, err = lab.BuildEnv(rest[1], strings.Split(buildArgs, "\n"), base); err == nil {
			for _, a := range env {
				fmt.Fprintln(stdout, a)
			}
		}
	case "verify-rows":
		var rows []string
		if rows, err = verifyRows(lab, rest[1:]); err == nil {
			for _, r := range rows {
				fmt.Fprintln(stdout, r)
			}
		}
	case "postgres-settings":
		var v string
		if v, err = lab.PostgresSettings(); err == nil {
			fmt.Fprintln(stdout, v)
		}
	case "postgres-version":
		var v string
		if v, err = lab.PostgresVersion(); err == nil {
			fmt.Fprintln(stdout, v)
		}
	case "confine":
		err = printConfine(lab, rest[1:], unconfined == "1", stdout)
	case "confine-ids":
		fmt.Fprintf(stdout, "CONFINE_USER=%s\nCONFINE_PIDS_LIMIT=%d\n", confine.User(), confine.PidsLimit)
	case "tags":
		if !printTags(lab, rest[1:], stdout, stderr) {
			return 2
		}
	case "tag":
		var tag string
		if tag, err = lab.Tag(rest[1], strings.Split(buildArgs, "\n")); err == nil {
			fmt.Fprintln(stdout, tag)
		}
	}
	if err != nil {
		var se *stackenv.Error
		if errors.As(err, &se) {
			fmt.Fprintln(stderr, se.Msg)
			return 2
		}
		fmt.Fprintln(stderr, "stack "+rest[0]+": "+err.Error())
		return 1
	}
	return 0
}

// printTags prints "NAME TAG" for each of names the lab builds, each
// once, in order; a stack whose IMAGE names an image built elsewhere has
// no tag of the lab's. A stack whose tag cannot be made is its one line on
// stderr, and the others are still printed: the bench counts it unbuilt,
// and scripts/images says the same when it comes to build it. False when
// one failed.
func printTags(lab stackenv.Lab, names []string, stdout, stderr io.Writer) bool {
	ok, seen := true, map[string]bool{}
	lab.Made = map[string]string{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		im, err := lab.Image(name, nil)
		if err != nil {
			fmt.Fprintln(stderr, err.Error())
			ok = false
			continue
		}
		if !im.Elsewhere {
			fmt.Fprintln(stdout, name+" "+im.Tag)
		}
	}
	return ok
}

// printBuild prints a build plan as the KEY=VALUE lines scripts/images
// assigns: the values of a stack built elsewhere, of refused arguments, or
// of a build.
func printBuild(b stackenv.Build, w io.Writer) {
	switch {
	case b.Elsewhere:
		fmt.Fprintf(w, "ELSEWHERE=1\nTAG=%s\n", b.Tag)
	case b.Problem != "":
		fmt.Fprintf(w, "ELSEWHERE=0\nPROBLEM=%s\n", b.Problem)
	default:
		fmt.Fprintf(w, "ELSEWHERE=0\nTAG=%s\nARGS=%s\nLOG=%s\n", b.Tag, b.Args, b.Log)
	}
}

// verifyRows reads scripts/verify's rows: a stack's name (on SQLite), or
// STACK[pg], the stack on the lab's Postgres server role, which only a
// stack whose DATABASES names postgres runs on. Each is "ROW STACK
// DATABASE"; the first row that is neither is its one line.
func verifyRows(lab stackenv.Lab, rows []string) ([]string, error) {
	var out []string
	for _, row := range rows {
		stack, pg := strings.CutSuffix(row, "[pg]")
		if err := lab.Check(stack); err != nil {
			return nil, err
		}
		db := study.DatabaseSQLite
		if pg {
			s, err := lab.Read(stack)
			if err != nil {
				return nil, err
			}
			if err := study.RunsOn(s, study.DatabasePostgres); err != nil {
				return nil, err
			}
			db = study.DatabasePostgres
		}
		out = append(out, row+" "+stack+" "+db)
	}
	return out, nil
}

// printConfine prints the confinement's flags a line each, with the
// SCRATCH dirs of the stack named (when one is); a bad scratch dir is the
// one line bash's confine_flags said, exit 2.
func printConfine(lab stackenv.Lab, name []string, unconfined bool, stdout io.Writer) error {
	var scratch []string
	if len(name) == 1 {
		s, err := lab.Read(name[0])
		if err != nil {
			return err
		}
		scratch = s.Words("SCRATCH")
	}
	flags, err := confine.Flags(scratch, unconfined)
	if err != nil {
		return &stackenv.Error{Msg: err.Error()}
	}
	for _, f := range flags {
		fmt.Fprintln(stdout, f)
	}
	return nil
}

// imageID is the id of the image Docker has under tag, "" when it has none
// (or no engine answers): what a DEPENDS image adds to its dependents' tags.
func imageID(tag string) string {
	out, _ := exec.Command("docker", "image", "inspect", "-f", "{{.Id}}", tag).Output()
	return strings.TrimRight(string(out), "\n")
}

// toolchainVersion is what a TOOLCHAINS entry adds to the hash: its `NAME
// --version`, except go (`go version`, run in the lab's root so that
// go.mod's toolchain line counts) and docker (the engine that builds and
// loads images, not the client). A program that is missing or fails hashes
// as "not installed".
func toolchainVersion(root, name string) string {
	var cmd *exec.Cmd
	switch name {
	case "go":
		cmd = exec.Command("go", "version")
		cmd.Dir = root
	case "docker":
		cmd = exec.Command("docker", "version", "-f", "engine {{.Server.Version}}")
	default:
		cmd = exec.Command(name, "--version")
	}
	out, err := cmd.Output()
	if err != nil {
		return "not installed"
	}
	return strings.TrimRight(string(out), "\n")
}

// hostPackageSteps decides, for each "name=version" the stack needs, what
// scripts/native-stack does: install it when installed(name) is "", keep
// the host's other version (said in a note), or nothing.
func hostPackageSteps(pkgs []string, installed func(string) string) []string {
	var out []string
	for _, p := range pkgs {
		name, want, _ := strings.Cut(p, "=")
		switch have := installed(name); have {
		case "":
			out = append(out, "install "+p)
		case want:
		default:
			out = append(out, "keep "+name+" "+have+" "+want)
		}
	}
	return out
}

// dpkgVersion is the version of name dpkg has installed, "" when none.
func dpkgVersion(name string) string {
	out, _ := exec.Command("dpkg-query", "-W", "-f=${Status} ${Version}", name).Output()
	v, ok := strings.CutPrefix(string(out), "install ok installed ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(v)
}
