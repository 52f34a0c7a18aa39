package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// dockerUp reports why Docker cannot be used, or "" when an engine answers.
func dockerUp() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", "version", "--format", "{{.Server.Version}}").CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return ""
}

func docker(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestBuildImageTwiceSameID runs each Go image folder's real build-image
// twice under two tags of the test's own and asserts Docker gives both the
// same image id: the binary, the archive and so the image are reproducible.
// The first go-nethttp build compiles SQLite's C (about 1.5 min on 2 busy
// CPUs); later ones hit the build cache.
func TestBuildImageTwiceSameID(t *testing.T) {
	if why := dockerUp(); why != "" {
		t.Skipf("no Docker engine answers (%s): build-image reproducibility not checked", why)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, folder := range []string{"upstream", "go-nethttp"} {
		t.Run(folder, func(t *testing.T) {
			var ids []string
			for run := 1; run <= 2; run++ {
				tag := fmt.Sprintf("stacklab-e-mkimage-test/%s:%d-%d", folder, os.Getpid(), run)
				t.Cleanup(func() { exec.Command("docker", "rmi", tag).Run() })
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				out, err := exec.CommandContext(ctx, filepath.Join(root, "stacks", folder, "build-image"), tag).CombinedOutput()
				cancel()
				if err != nil {
					t.Fatalf("stacks/%s/build-image %s: %v\n%s", folder, tag, err, out)
				}
				id := docker(t, "image", "inspect", "--format", "{{.Id}}", tag)
				if printed := strings.TrimSpace(string(out)); printed != id {
					t.Errorf("build-image printed %q, docker says %s", printed, id)
				}
				ids = append(ids, id)
			}
			if ids[0] != ids[1] {
				t.Errorf("stacks/%s: two builds gave image ids %s and %s", folder, ids[0], ids[1])
			}
			if folder == "upstream" {
				runUpstream(t, fmt.Sprintf("stacklab-e-mkimage-test/upstream:%d-1", os.Getpid()))
			}
		})
	}
}

// runUpstream starts the scratch image for a second and asks it one
// question: proof that the archive is not only loadable but runnable.
func runUpstream(t *testing.T, tag string) {
	name := fmt.Sprintf("stacklab-e-mkimage-test-%d", os.Getpid())
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", name).Run() })
	docker(t, "run", "-d", "--name", name, "--network", "host", "-e", "PORT=18399", tag)
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := http.Get("http://127.0.0.1:18399/delay?ms=0")
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || string(b) != `{"ok":true}` {
				t.Errorf("upstream image answered %d %q", res.StatusCode, b)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("upstream image did not answer on 127.0.0.1:18399 within 10 s: %v\n%s", err,
				docker(t, "logs", name))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
