package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"stacklab/analysis/stackenv"
	"stacklab/analysis/study"
)

// relativeProfile is the profile relative mode (scripts/guard --against)
// measures with unless --profile names another: the paired profile, every
// row up at once and short slices alternating, so that both builds share
// the host's noise.
const relativeProfile = "paired"

// relativeOptions are --relative-study's: the study, the stack both rows
// run, and the base row's name, stack.env and image (built at another
// commit by scripts/guard --against).
type relativeOptions struct {
	study, stack, baseRow, baseEnv, baseImage, out string
}

var (
	stacksDirLine = regexp.MustCompile(`(?m)^stacks_dir[ \t]*=.*$`)
	stackNameLine = regexp.MustCompile(`(?m)^STACK_NAME=.*$`)
	rowName       = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
)

// relativeStudy writes the study of a relative run into o.out: the study's
// files as they are (its includes beside it), its stacks_dir pointing at
// o.out/stacks, where every stack folder of the study's own stacks_dir is
// linked and the base row is a folder of its own: the stack.env of the
// other commit, renamed, running the image built there (IMAGE: the bench
// never builds it). It prints the study's path.
func relativeStudy(o relativeOptions, stdout io.Writer) (int, error) {
	st, err := study.Load(o.study)
	if err != nil {
		return 0, &badInput{err.Error()}
	}
	if !rowName.MatchString(o.baseRow) {
		return 0, bad("--base-row %q is not a stack name (lower-case letters, digits, '.', '_', '-')", o.baseRow)
	}
	env, err := os.ReadFile(o.baseEnv)
	if err != nil {
		return 0, bad("--base-env %s: %v", o.baseEnv, err)
	}
	if !stackNameLine.Match(env) {
		return 0, bad("--base-env %s: no STACK_NAME= line (is it a stack.env?)", o.baseEnv)
	}
	stacks := filepath.Join(o.out, "stacks")
	if err := os.MkdirAll(filepath.Join(stacks, o.baseRow), 0o755); err != nil {
		return 0, err
	}
	if st.StacksDir != "" {
		ents, err := os.ReadDir(st.StacksDir)
		if err != nil {
			return 0, bad("%s: stacks_dir %s: %v", o.study, st.StacksDir, err)
		}
		for _, e := range ents {
			if !e.IsDir() || e.Name() == o.baseRow {
				continue
			}
			abs, err := filepath.Abs(filepath.Join(st.StacksDir, e.Name()))
			if err != nil {
				return 0, err
			}
			if err := os.Symlink(abs, filepath.Join(stacks, e.Name())); err != nil {
				return 0, err
			}
		}
	}
	env = stackNameLine.ReplaceAll(env, []byte("STACK_NAME="+o.baseRow))
	env = append(env, []byte(fmt.Sprintf("\n# The relative run's base: %s as another commit has it, built there (scripts/guard --against).\nIMAGE=%s\n", o.stack, o.baseImage))...)
	if err := os.WriteFile(filepath.Join(stacks, o.baseRow, "stack.env"), env, 0o644); err != nil {
		return 0, err
	}
	absStacks, err := filepath.Abs(stacks)
	if err != nil {
		return 0, err
	}
	var path string
	for i, f := range st.Files {
		text := f.Text
		if i == 0 {
			line := fmt.Sprintf("stacks_dir = %q", absStacks)
			if stacksDirLine.MatchString(text) {
				text = stacksDirLine.ReplaceAllLiteralString(text, line)
			} else {
				text = "# scripts/guard --against: the stack at another commit is a row of its own.\n" + line + "\n" + text
			}
		}
		p := filepath.Join(o.out, f.Name+".toml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return 0, err
		}
		if i == 0 {
			path = p
		}
	}
	if _, err := study.Load(path); err != nil {
		return 0, fmt.Errorf("the relative study does not read: %v", err)
	}
	fmt.Fprintln(stdout, path)
	return 0, nil
}

// stackFolder is where the study's stack's folder is, relative to the
// lab's root: the study's stacks_dir first, as the bench looks, then stacks/.
func stackFolder(studyFile, stack, root string) (string, error) {
	st, err := study.Load(studyFile)
	if err != nil {
		return "", &badInput{err.Error()}
	}
	dir := filepath.Join(root, "stacks", stack)
	if st.StacksDir != "" {
		if stackenv.IsStack(filepath.Join(st.StacksDir, stack)) {
			dir = filepath.Join(st.StacksDir, stack)
		}
	}
	if !stackenv.IsStack(dir) {
		return "", bad("%s: no stack %s (no %s)", studyFile, stack, filepath.Join(dir, "stack.env"))
	}
	absDir, err1 := filepath.Abs(dir)
	absRoot, err2 := filepath.Abs(root)
	rel, err3 := filepath.Rel(absRoot, absDir)
	if err := errors.Join(err1, err2, err3); err != nil || strings.HasPrefix(rel, "..") {
		return "", bad("%s: the stack folder %s is outside the lab (%s): another commit of it cannot be built", studyFile, dir, root)
	}
	return filepath.ToSlash(rel), nil
}
