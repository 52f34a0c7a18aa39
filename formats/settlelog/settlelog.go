// Package settlelog owns `step-NN.settle.json`: what bench/settle found
// when it waited for an app to cool down after a failed capacity step,
// written by the probe and read by analysis.
package settlelog

// Result is one cooldown's record.
type Result struct {
	Settled  bool    `json:"settled"`
	WaitedMs int64   `json:"waited_ms"`
	CPUShare float64 `json:"cpu_share"` // the last interval's, of one CPU
	ProbeMs  float64 `json:"probe_ms"`  // the last probe's answer time; -1 when it failed
	Checks   int     `json:"checks"`
}
