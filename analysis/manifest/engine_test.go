package manifest

import "testing"

func engines(loadgenEngine, loadgenName string) map[string]Engine {
	e := Engine{Name: "a", ServerVersion: "20.10", Kernel: "6.1", NCPU: 2, MemoryBytes: 1 << 30, CgroupVersion: "1", CPUs: "0"}
	g := e
	g.Engine, g.Name, g.CPUs, g.Container = loadgenEngine, loadgenName, "1", true
	return map[string]Engine{"app": e, "loadgen": g, "upstream": e}
}

func TestSameEngines(t *testing.T) {
	if !SameEngines(nil, nil) {
		t.Error("two runs on one local engine are not the same set")
	}
	a := engines("lab-b", "b")
	if !SameEngines(a, engines("lab-b", "b")) {
		t.Error("the same set differs")
	}
	if SameEngines(a, nil) || SameEngines(nil, a) {
		t.Error("a set of engines matches one local engine")
	}
	if SameEngines(a, engines("lab-b", "c")) {
		t.Error("the generator on another machine is the same set")
	}
	// the same machines, but the generator now shares the app's engine
	if SameEngines(engines("", "a"), engines("lab-a", "a")) {
		t.Error("roles sharing an engine match roles on two engines")
	}
	m1 := &Manifest{Host: Host{Profile: "p", Engines: a}}
	m2 := &Manifest{Host: Host{Profile: "p", Engines: engines("lab-b", "c")}}
	if SameHost(m1, m2) {
		t.Error("SameHost ignores the engines")
	}
}
