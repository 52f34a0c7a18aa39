package cgroupstat

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// VMStat holds the lines of /proc/vmstat the probes use, named after the
// kernel's own keys. Values are pages. A key the kernel did not print is nil.
// (prometheus/procfs has no /proc/vmstat reader, hence this one.)
type VMStat struct {
	NrDirty                    *uint64 // nr_dirty: dirty page-cache pages, host-wide
	NrWriteback                *uint64 // nr_writeback: pages under writeback
	NrDirtyThreshold           *uint64 // nr_dirty_threshold: writers are throttled above this
	NrDirtyBackgroundThreshold *uint64 // nr_dirty_background_threshold: background flushing starts here
}

// ReadVMStat reads a /proc/vmstat file (procRoot + "/vmstat").
func ReadVMStat(procRoot string) (VMStat, error) {
	path := procRoot + "/vmstat"
	b, err := os.ReadFile(path)
	if err != nil {
		return VMStat{}, err
	}
	return parseVMStat(path, b)
}

// parseVMStat reads the text of a /proc/vmstat file; path names it in errors.
func parseVMStat(path string, b []byte) (VMStat, error) {
	var v VMStat
	fields := map[string]**uint64{
		"nr_dirty":                      &v.NrDirty,
		"nr_writeback":                  &v.NrWriteback,
		"nr_dirty_threshold":            &v.NrDirtyThreshold,
		"nr_dirty_background_threshold": &v.NrDirtyBackgroundThreshold,
	}
	for line, rest := 1, b; len(rest) > 0; line++ {
		var text []byte
		text, rest, _ = bytes.Cut(rest, []byte("\n"))
		key, val, ok := strings.Cut(string(text), " ")
		if !ok {
			return VMStat{}, fmt.Errorf("%s:%d: want \"key value\", got %q", path, line, text)
		}
		dst, wanted := fields[key]
		if !wanted {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
		if err != nil {
			return VMStat{}, fmt.Errorf("%s:%d: %s: %v", path, line, key, err)
		}
		*dst = &n
	}
	return v, nil
}
