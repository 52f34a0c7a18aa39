//go:build tools

// Package tools pins scc: go.mod requires it, go.sum holds its hashes.
package tools

import _ "github.com/boyter/scc/v3"
