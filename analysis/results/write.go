package results

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"stacklab/formats/cpulist"
	"stacklab/formats/rawfile"
)

// The bench's small raw files are written here, beside their readers, so
// one package owns each format (bash writes no JSON).

// WriteRaw stores v as one JSON line at path, through a temporary file and
// a rename, so a reader never sees half a file.
func WriteRaw(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return rawfile.Write(path, append(b, '\n'))
}

// LoadgenFromTime builds a Loadgen from bash's `time` output in the
// format "%3U %3S %3R" (user, system and real seconds) for a generator
// pinned to cpus; it is saturated above 90% of those CPUs.
func LoadgenFromTime(timeOutput, cpus string) (Loadgen, error) {
	f := strings.Fields(timeOutput)
	if len(f) != 3 {
		return Loadgen{}, fmt.Errorf("want \"USER SYS REAL\" seconds, got %q", strings.TrimSpace(timeOutput))
	}
	var v [3]float64
	for i, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x < 0 {
			return Loadgen{}, fmt.Errorf("%q is not a number of seconds", s)
		}
		v[i] = x
	}
	n := cpulist.Count(cpus)
	if n == 0 {
		return Loadgen{}, fmt.Errorf("--cpus %q is not a CPU list like 1 or 0-3", cpus)
	}
	cpu := v[0] + v[1]
	return Loadgen{CPUs: cpus, CPUSeconds: round3(cpu), WindowS: round3(v[2]), Saturated: cpu > SaturatedShare*float64(n)*v[2]}, nil
}

func round3(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 3, 64), 64)
	return r
}
