package main

import (
	"time"

	"stacklab/analysis/manifest"
	"stacklab/bench/hostfp"
)

// A test of record start fixes its clock and host, so that the manifest it
// writes can be compared byte for byte with a golden file.
var (
	now             = time.Now
	hostFingerprint = fingerprint
)

// fingerprint describes the host a run was measured on (package hostfp).
func fingerprint() (manifest.Fingerprint, error) { return hostfp.Read() }
