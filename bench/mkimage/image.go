package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"
)

// File is one regular file of the image's single layer.
type File struct {
	Path string // absolute path in the image, e.g. /app/server
	Mode int64  // permission bits
	Data []byte
}

// Spec is everything that goes into an image. The same Spec always gives
// the same archive bytes and so the same image id.
type Spec struct {
	Tag        string
	Entrypoint []string
	Env        []string // K=V, in the order given
	Ports      []int    // exposed TCP ports (documentation only under --network host)
	Files      []File
	Arch       string    // GOARCH spelling: amd64, arm64
	Created    time.Time // every timestamp in the archive and the config
}

// Image is the result of Build: the archive to hand to `docker load` and the
// id Docker will give it (the sha256 of the config JSON).
type Image struct {
	Archive []byte
	ID      string // sha256:<hex>
	DiffID  string // sha256 of the uncompressed layer tar
}

// config is Docker's image config (the part docker load and docker run
// read). Field order is fixed by the struct; maps are marshalled sorted.
type config struct {
	Architecture string        `json:"architecture"`
	OS           string        `json:"os"`
	Created      string        `json:"created"`
	Config       runConfig     `json:"config"`
	RootFS       rootFS        `json:"rootfs"`
	History      []historyItem `json:"history"`
}

type runConfig struct {
	Env          []string            `json:"Env,omitempty"`
	Entrypoint   []string            `json:"Entrypoint"`
	ExposedPorts map[string]struct{} `json:"ExposedPorts,omitempty"`
	WorkingDir   string              `json:"WorkingDir"`
}

type rootFS struct {
	Type    string   `json:"type"`
	DiffIDs []string `json:"diff_ids"`
}

type historyItem struct {
	Created   string `json:"created"`
	CreatedBy string `json:"created_by"`
}

type manifestItem struct {
	Config   string   `json:"Config"`
	RepoTags []string `json:"RepoTags"`
	Layers   []string `json:"Layers"`
}

// Build writes the image archive in memory. The binaries here are a few
// megabytes, so holding the layer twice is cheaper than a second pass.
func Build(s Spec) (Image, error) {
	layer, err := layerTar(s)
	if err != nil {
		return Image{}, err
	}
	diffID := digest(layer)
	created := s.Created.UTC().Format(time.RFC3339)
	ports := map[string]struct{}{}
	for _, p := range s.Ports {
		ports[fmt.Sprintf("%d/tcp", p)] = struct{}{}
	}
	cfg := config{
		Architecture: s.Arch,
		OS:           "linux",
		Created:      created,
		Config: runConfig{
			Env:          s.Env,
			Entrypoint:   s.Entrypoint,
			ExposedPorts: ports,
			WorkingDir:   "/",
		},
		RootFS:  rootFS{Type: "layers", DiffIDs: []string{diffID}},
		History: []historyItem{{Created: created, CreatedBy: "stacklab mkimage"}},
	}
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return Image{}, err
	}
	id := digest(cfgJSON)
	hexID := strings.TrimPrefix(id, "sha256:")
	layerName := strings.TrimPrefix(diffID, "sha256:") + "/layer.tar"
	man, err := json.Marshal([]manifestItem{{
		Config:   hexID + ".json",
		RepoTags: []string{s.Tag},
		Layers:   []string{layerName},
	}})
	if err != nil {
		return Image{}, err
	}
	var out bytes.Buffer
	tw := tar.NewWriter(&out)
	entries := []File{
		{Path: hexID + ".json", Mode: 0o644, Data: cfgJSON},
		{Path: layerName, Mode: 0o644, Data: layer},
		{Path: "manifest.json", Mode: 0o644, Data: man},
	}
	if err := writeTree(tw, entries, s.Created); err != nil {
		return Image{}, err
	}
	if err := tw.Close(); err != nil {
		return Image{}, err
	}
	return Image{Archive: out.Bytes(), ID: id, DiffID: diffID}, nil
}

// layerTar is the image's one layer: the files, their parent directories,
// and /tmp (SQLite and Go put temporary files there; a scratch image has
// none).
func layerTar(s Spec) ([]byte, error) {
	files := []File{{Path: "/tmp/", Mode: 0o1777}}
	files = append(files, s.Files...)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := writeTree(tw, files, s.Created); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeTree writes files and every parent directory they need, sorted by
// name, owned by 0:0, all stamped with the same time, in USTAR format (no
// PAX records that could carry access times or other varying fields).
// A path ending in "/" is a directory with the given mode.
func writeTree(tw *tar.Writer, files []File, mtime time.Time) error {
	type entry struct {
		name string
		mode int64
		data []byte
		dir  bool
	}
	byName := map[string]entry{}
	for _, f := range files {
		name := strings.TrimPrefix(f.Path, "/")
		isDir := strings.HasSuffix(name, "/")
		clean := path.Clean(name)
		if clean == "." || strings.HasPrefix(clean, "../") || clean == ".." {
			return fmt.Errorf("bad path in image: %q", f.Path)
		}
		if isDir {
			clean += "/"
		}
		if _, dup := byName[clean]; dup {
			return fmt.Errorf("path %q given twice", f.Path)
		}
		byName[clean] = entry{name: clean, mode: f.Mode, data: f.Data, dir: isDir}
		for d := path.Dir(strings.TrimSuffix(clean, "/")); d != "."; d = path.Dir(d) {
			if _, ok := byName[d+"/"]; !ok {
				byName[d+"/"] = entry{name: d + "/", mode: 0o755, dir: true}
			}
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		if !byName[n].dir {
			if _, clash := byName[n+"/"]; clash {
				return fmt.Errorf("path %q is both a file and a directory", "/"+n)
			}
		}
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		e := byName[n]
		h := &tar.Header{
			Name:    e.name,
			Mode:    e.mode,
			ModTime: mtime,
			Format:  tar.FormatUSTAR,
		}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("tar entry %s: %w", e.name, err)
		}
		if !e.dir {
			if _, err := io.Copy(tw, bytes.NewReader(e.data)); err != nil {
				return err
			}
		}
	}
	return nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
