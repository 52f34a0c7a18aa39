// Package manifest reads and writes a results folder's manifest.json: what
// was run, on which host, with which tools and images. The bench writes it
// through bench/record; summarize, compare and reproduce read it.
package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"stacklab/analysis/profile"
)

// Version is the manifest_version this code writes. Version 1 (before
// studies were files) is still read: it has no study_files of its own
// until `record adopt-study` adds them.
const Version = 2

// FileName is the manifest's name inside a results folder.
const FileName = "manifest.json"

type Manifest struct {
	ManifestVersion  int    `json:"manifest_version"`
	Complete         bool   `json:"complete"`
	IncompleteReason string `json:"incomplete_reason"`
	LabCommit        string `json:"lab_commit"`
	StartedAt        string `json:"started_at"`
	EndedAt          string `json:"ended_at"`
	Study            string `json:"study"`
	// StudyFiles is the study as it was measured: its own file first, then
	// those it includes. Analysis and a re-run read this copy, never the
	// file in studies/ (which may have changed since).
	StudyFiles []StudyFile `json:"study_files,omitempty"`
	StudyHash  string      `json:"study_hash,omitempty"`
	// StudyAdopted says when and how StudyFiles were added to a manifest
	// written before studies were files.
	StudyAdopted string `json:"study_adopted,omitempty"`
	Profile      string `json:"profile"`
	// ProfileTable is the bench profile's whole table as the bench ran
	// with it (analysis/profile); absent in folders from before the table.
	ProfileTable *profile.Profile `json:"profile_table,omitempty"`
	Label        string           `json:"label"`
	// SharedHost says what else ran on the host while the bench did, as
	// whoever ran it declared (LAB_SHARED_HOST, or record shared after the
	// fact); "" when nothing was declared. The quiet gate measures load,
	// not intent: a compiler between two windows passes it.
	SharedHost string            `json:"shared_host,omitempty"`
	Host       Host              `json:"host"`
	Parameters Parameters        `json:"parameters"`
	Tools      map[string]string `json:"tools"`
	Images     map[string]Image  `json:"images"`
	// Rows describes each row of the tables that is not simply a stack
	// folder's image run as it ships: a variant (the same image with other
	// environment) or a stack's request slots. Keyed by row name.
	Rows     map[string]RowInfo `json:"rows,omitempty"`
	Runs     []Run              `json:"runs"`
	Failures []Failure          `json:"failures"`
	// Confinement: per container (stack name, "upstream"), what Docker applied.
	Confinement map[string]Confinement `json:"confinement,omitempty"`
	// Timing is how long the bench took against what it measured and what
	// its first ETA said (absent in manifests written before the bench timed itself).
	Timing *Timing `json:"timing,omitempty"`
	// Warmups is, per window, how long its warm-up took to get the app
	// steady (package steady), gathered from the raw warmup.json files when
	// the run closed; absent in manifests from before steady warm-ups.
	Warmups []Warmup `json:"warmups,omitempty"`
}

// Warmup is one window's time to steady state.
type Warmup struct {
	Run     int     `json:"run"`
	Row     string  `json:"row"`
	Case    string  `json:"case"`
	Seconds float64 `json:"seconds"`
	Steady  bool    `json:"steady"`
}

// Timing: the bench's wall time (from its first ETA to the end of the
// last run, less the image builds a quick bench does between stacks: the
// phase "build", which no ETA counted), the measured windows in it, and
// its first estimate.
type Timing struct {
	WallS           float64 `json:"wall_s"`
	MeasuredWindows int     `json:"measured_windows"`
	WindowS         float64 `json:"window_s"`
	// Overhead is wall time ÷ (measured windows × window length): 1.0
	// would be a bench that did nothing but measure.
	Overhead  float64 `json:"orchestration_overhead"`
	ETAFirstS float64 `json:"eta_first_s"`
	// ETAError is (first ETA − wall) ÷ wall: negative when it said too little.
	ETAError float64 `json:"eta_error"`
	// ETAMeanError is, over every estimate the progress line showed, the
	// mean of |estimated − actual time left| ÷ the wall time.
	ETAMeanError float64 `json:"eta_mean_abs_error"`
	ETAEstimates int     `json:"eta_estimates"`
	Phases       []Phase `json:"phases"`
}

// Phase is one kind of the bench's phases: how many, and their total time.
type Phase struct {
	Kind    string  `json:"kind"`
	Count   int     `json:"count"`
	Seconds float64 `json:"seconds"`
}

type Host struct {
	Profile     string            `json:"profile"`
	Settings    map[string]string `json:"settings"`
	Fingerprint Fingerprint       `json:"fingerprint"`
	// Engines is, per role (app, loadgen, upstream), the Docker engine it
	// ran on, when the host profile names engines (engine.go); absent for
	// the default, one local engine.
	Engines map[string]Engine `json:"engines,omitempty"`
}

type Fingerprint struct {
	Hostname    string `json:"hostname"`
	CPUModel    string `json:"cpu_model"`
	Cores       int    `json:"cores"`
	MemoryBytes int64  `json:"memory_bytes"`
	Kernel      string `json:"kernel"`
	CgroupMode  string `json:"cgroup_mode"`
	VM          VM     `json:"vm"`
}

// VM holds the kernel's dirty-page limits (/proc/sys/vm), which decide when
// writers in a memory-limited container are throttled.
type VM struct {
	DirtyRatio           int64 `json:"dirty_ratio"`
	DirtyBackgroundRatio int64 `json:"dirty_background_ratio"`
	DirtyBytes           int64 `json:"dirty_bytes"`
	DirtyBackgroundBytes int64 `json:"dirty_background_bytes"`
}

type Parameters struct {
	Runs        int      `json:"runs"`
	WarmupS     float64  `json:"warmup_s"`
	DurationS   float64  `json:"duration_s"`
	Connections int      `json:"connections"`
	Cases       []string `json:"cases"`
	Stacks      []string `json:"stacks"`
	// Extra holds the bench's other parameters, each key of ExtraKeys
	// (extra.go: its kind, checked when written; read through the
	// Parameters methods there).
	Extra map[string]string `json:"extra,omitempty"`
}

type Image struct {
	Tag        string `json:"tag"`
	ID         string `json:"id"`
	SizeBytes  int64  `json:"size_bytes"`
	Compressed int64  `json:"compressed_bytes,omitempty"`
	Digest     string `json:"content_digest,omitempty"`
}

// StudyFile is one study file's name (without .toml) and text.
type StudyFile struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// RowInfo is how one row of the tables was run.
type RowInfo struct {
	Stack string            `json:"stack"`
	Env   map[string]string `json:"env,omitempty"`
	// RequestSlots is how many requests the row serves at once (workers ×
	// threads), 0 when the stack sets no such limit.
	RequestSlots int `json:"request_slots"`
	// Contract is "app" (docs/app.md, checked by verify) or "none" (an image
	// of the user's own, checked by the study's per-case checks), as
	// stackenv decides it; absent when the bench said none (a size study).
	Contract string `json:"contract,omitempty"`
}

type Run struct {
	Run       int               `json:"run"`
	Order     []string          `json:"order"`
	Discarded []json.RawMessage `json:"discarded"`
	Quiet     json.RawMessage   `json:"quiet,omitempty"`
	// Host is the host this run was measured on, when the bench records it
	// per run (a resumed bench may continue on another machine). Absent
	// means the manifest's Host. Summarize refuses a folder whose runs
	// name more than one host.
	Host *Host `json:"host,omitempty"`
}

type Failure struct {
	Run    int    `json:"run"`
	Stack  string `json:"stack"`
	Case   string `json:"case"`
	Reason string `json:"reason"`
}

// SameHost tells whether two manifests describe the same host: the lab never
// puts two hosts' runs in one table.
func SameHost(a, b *Manifest) bool {
	fa, fb := a.Host.Fingerprint, b.Host.Fingerprint
	return a.Host.Profile == b.Host.Profile && fa.CPUModel == fb.CPUModel &&
		fa.Cores == fb.Cores && fa.MemoryBytes == fb.MemoryBytes && fa.Kernel == fb.Kernel &&
		SameEngines(a.Host.Engines, b.Host.Engines)
}

// Error is a fault in a manifest file, worded for a one-line message.
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Read loads and checks dir/manifest.json.
func Read(dir string) (*Manifest, error) {
	path := filepath.Join(dir, FileName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &Error{path, "missing (is this a results folder?)"}
	}
	if err != nil {
		return nil, &Error{path, err.Error()}
	}
	return Parse(path, b)
}

// Parse decodes and checks a manifest held in memory; path names it in errors.
func Parse(path string, b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, &Error{path, "not valid JSON: " + err.Error()}
	}
	if m.ManifestVersion < 1 || m.ManifestVersion > Version {
		return nil, &Error{path, fmt.Sprintf("unknown manifest_version %d (this lab reads 1 to %d)", m.ManifestVersion, Version)}
	}
	if m.Study == "" {
		return nil, &Error{path, "no study"}
	}
	if m.Host.Profile == "" {
		return nil, &Error{path, "no host profile"}
	}
	return &m, nil
}

// Write stores m as dir/manifest.json, through a temporary file and a rename
// so that a reader never sees half a manifest.
func Write(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(dir, ".manifest-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, FileName))
}

// RunHost is the host that measured run r: its own when recorded, else the
// manifest's.
func (m *Manifest) RunHost(r Run) Host {
	if r.Host != nil {
		return *r.Host
	}
	return m.Host
}

// SameFingerprint tells whether two hosts are the same machine and profile,
// by the rule of SameHost.
func SameFingerprint(a, b Host) bool {
	fa, fb := a.Fingerprint, b.Fingerprint
	return a.Profile == b.Profile && fa.CPUModel == fb.CPUModel &&
		fa.Cores == fb.Cores && fa.MemoryBytes == fb.MemoryBytes && fa.Kernel == fb.Kernel &&
		SameEngines(a.Engines, b.Engines)
}
