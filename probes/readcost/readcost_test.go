package main

import (
	"path/filepath"
	"testing"
)

func TestParseRowsWantsAscendingSizesFromTheSeed(t *testing.T) {
	if got, err := parseRows("1000, 5000,20000"); err != nil || len(got) != 3 || got[2] != 20000 {
		t.Errorf("parseRows: %v, %v", got, err)
	}
	for _, bad := range []string{"500", "1000,1000", "2000,1500", "1000,x"} {
		if _, err := parseRows(bad); err == nil {
			t.Errorf("parseRows(%q) accepted", bad)
		}
	}
}

// The table really grows: the read at each size counts that many rows.
func TestMeasureGrowsTheTableToEachSize(t *testing.T) {
	got, err := measure(filepath.Join(t.TempDir(), "r.db"), []int{1000, 3000}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Rows != 1000 || got[1].Rows != 3000 || got[1].Reads != 10 || !(got[1].MedianUs > 0) {
		t.Errorf("sizes %+v", got)
	}
}
