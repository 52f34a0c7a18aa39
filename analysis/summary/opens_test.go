package summary

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Compute takes what the readers loaded (analysis/results reads every raw
// file a figure needs) and opens no file: a read here would hide a fault
// of the folder from the loader, and make compute depend on the disk.
func TestComputeOpensNoFile(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		found, err := fileOpens(fset, name, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			t.Errorf("%s: calls %s: compute opens no file; read it in analysis/results and pass the value", f.pos, f.call)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no source file of package summary found")
	}
}

// The scan itself: it must flag each way of opening a file it knows.
func TestFileOpensFlags(t *testing.T) {
	src := `package summary

import (
	"io/ioutil"
	stdos "os"

	"stacklab/formats/latencyline"
	tl "stacklab/formats/timeline"
	"stacklab/analysis/results"
)

func f(w *results.Window) {
	stdos.Open("a")
	stdos.ReadFile("a")
	ioutil.ReadAll(nil)
	latencyline.Read("a")
	tl.ReadEnds("a")
	results.Load("a")
	w.ReadTimeline()
	_ = w.Samples
}
`
	found, err := fileOpens(token.NewFileSet(), "planted.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.call)
	}
	want := "os.Open os.ReadFile io/ioutil.ReadAll stacklab/formats/latencyline.Read stacklab/formats/timeline.ReadEnds stacklab/analysis/results.Load .ReadTimeline"
	if strings.Join(got, " ") != want {
		t.Errorf("flagged %q, want %q", strings.Join(got, " "), want)
	}
}

type opening struct {
	pos  token.Position
	call string
}

// fileOpens lists the calls in src that open a file: os's and io/ioutil's
// file functions, a lab package's Read… or Load… function, and any method
// named Read… (a reader kept on a loaded value, such as a path read on
// demand).
func fileOpens(fset *token.FileSet, name string, src []byte) ([]opening, error) {
	file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	pkgs := map[string]string{} // local name → import path
	for _, im := range file.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		local := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			local = im.Name.Name
		}
		pkgs[local] = path
	}
	osFuncs := map[string]bool{"Open": true, "OpenFile": true, "ReadFile": true, "ReadDir": true, "Stat": true, "Lstat": true, "DirFS": true, "Create": true}
	var out []opening
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		fn := sel.Sel.Name
		bad := ""
		if id, ok := sel.X.(*ast.Ident); ok && pkgs[id.Name] != "" {
			path := pkgs[id.Name]
			switch {
			case path == "os" && osFuncs[fn], path == "io/ioutil":
				bad = path + "." + fn
			case strings.HasPrefix(path, "stacklab/") && (strings.HasPrefix(fn, "Read") || strings.HasPrefix(fn, "Load")):
				bad = path + "." + fn
			}
		} else if strings.HasPrefix(fn, "Read") {
			bad = "." + fn
		}
		if bad != "" {
			out = append(out, opening{fset.Position(call.Pos()), bad})
		}
		return true
	})
	return out, nil
}
