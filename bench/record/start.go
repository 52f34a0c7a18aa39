package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"stacklab/analysis/hostprofile"
	"stacklab/analysis/manifest"
	"stacklab/analysis/profile"
	"stacklab/analysis/stackenv"
	"stacklab/analysis/study"
)

// cpuCanaryWhen is the manifest's cpu_canary: the bench has the CPU-speed
// canary read the CPUs' speed before and after each window it measures.
const cpuCanaryWhen = "before and after every window (formats/speed)"

// start writes a new manifest. What its inputs say is derived here: the
// study's windows at the host profile's connections, each row's stack,
// variant, request slots and contract, the profile's warm-up, the app's
// CPU mode, the seed's size and, with a row on Postgres, the server
// role's facts. The flags carry only what the bench measured or chose.
func start(dir string, args []string) error {
	fl := flag.NewFlagSet("record start", flag.ContinueOnError)
	studyFile := fl.String("study-file", "", "the study file measured (its text goes into the manifest)")
	profileName := fl.String("profile", "", "bench profile (analysis/profile: quick, full, paired)")
	hostProfile := fl.String("host-profile", "", "hosts/<name>.env used")
	root := fl.String("lab-root", ".", "the lab's folder (stacks/ under it)")
	extraStacks := fl.String("extra-stacks", "", "another folder of stack folders (the bench's LAB_EXTRA_STACKS)")
	label := fl.String("label", "", "label of this run")
	shared := fl.String("shared-host", "", "what else runs on the host meanwhile, as declared (LAB_SHARED_HOST)")
	runs := fl.Int("runs", 0, "runs")
	warmup := fl.Float64("warmup", 0, "warm-up seconds")
	duration := fl.Float64("duration", 0, "measured seconds")
	stacks := fl.String("stacks", "", "the rows measured, comma separated, in the bench's order")
	commit := fl.String("lab-commit", "", "the lab's git commit")
	enginesFile := fl.String("engines", "", "each role's engine (record engine's file), when the host profile names engines")
	// What only the bench knows, measured or chosen as it runs: each flag,
	// when given, is the parameters.extra key it names.
	keyOf := map[string]string{"app-port": "app_port", "quiet-gate": "quiet_gate", "seed-checksum": "seed_checksum",
		"mode": "run_mode", "build-cpus": "build_cpus"}
	fl.String("app-port", "", "the port every row's app listens on")
	fl.String("quiet-gate", "", "1 when the quiet-host gate waits before each run, else 0")
	fl.String("seed-checksum", "", "the checksum of the seed's rows (seed --fingerprint)")
	fl.String("mode", "", "where the stacks run: docker or native")
	fl.String("build-cpus", "", "the CPUs a size study's builds run on")
	var tools multi
	fl.Var(&tools, "tool", "tool NAME=VERSION (repeatable)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *studyFile == "" || *profileName == "" || *hostProfile == "" {
		return fmt.Errorf("--study-file, --profile and --host-profile are required")
	}
	st, err := study.Load(*studyFile)
	if err != nil {
		return err
	}
	hp, err := hostprofile.Read(*hostProfile)
	if err != nil {
		return err
	}
	table, err := profile.Get(*profileName)
	if err != nil {
		return err
	}
	lab := stackenv.Lab{Root: strings.TrimSuffix(*root, "/"), Extra: st.ExtraStackDirs(*extraStacks)}
	rows, err := rowInfo(st, lab, list(*stacks))
	if err != nil {
		return err
	}
	params := manifest.Parameters{Runs: *runs, WarmupS: *warmup, DurationS: *duration, Cases: []string{}, Stacks: list(*stacks)}
	if params.Extra, err = derivedExtra(st, hp, table, lab, params.Stacks); err != nil {
		return err
	}
	if st.Size == nil {
		// the bench expands the study's windows at the host profile's connections
		if params.Connections, err = strconv.Atoi(hp.Set["CONNECTIONS"]); err != nil {
			return fmt.Errorf("host profile %s: CONNECTIONS=%s: want a whole number", *hostProfile, hp.Set["CONNECTIONS"])
		}
		for _, w := range st.Windows(params.Connections) {
			params.Cases = append(params.Cases, w.ID)
		}
	}
	var flagErr error
	fl.Visit(func(f *flag.Flag) {
		if key, ok := keyOf[f.Name]; ok {
			if err := manifest.CheckExtra(key, f.Value.String()); err != nil && flagErr == nil {
				flagErr = fmt.Errorf("--%s: %v", f.Name, err)
			}
			params.Extra[key] = f.Value.String()
		}
	})
	if flagErr != nil {
		return flagErr
	}
	tl, err := pairs(tools, "tool")
	if err != nil {
		return err
	}
	fp, err := hostFingerprint()
	if err != nil {
		return err
	}
	var engines map[string]manifest.Engine
	if *enginesFile != "" {
		if engines, err = manifest.ReadEngines(*enginesFile); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m := &manifest.Manifest{
		ManifestVersion:  manifest.Version,
		IncompleteReason: "running",
		LabCommit:        *commit,
		StartedAt:        now().UTC().Format(time.RFC3339),
		Study:            st.Name,
		StudyFiles:       studyFiles(st),
		StudyHash:        st.Hash(),
		Profile:          *profileName,
		ProfileTable:     &table,
		Label:            *label,
		SharedHost:       *shared,
		Host: manifest.Host{
			Profile:     hp.Name,
			Settings:    hp.Set,
			Fingerprint: fp,
			Engines:     engines,
		},
		Parameters: params,
		Tools:      tl,
		Images:     map[string]manifest.Image{},
		Rows:       rows,
		Runs:       []manifest.Run{},
		Failures:   []manifest.Failure{},
	}
	return manifest.Write(dir, m)
}

func studyFiles(st *study.Study) []manifest.StudyFile {
	out := make([]manifest.StudyFile, len(st.Files))
	for i, f := range st.Files {
		out[i] = manifest.StudyFile{Name: f.Name, Text: f.Text}
	}
	return out
}

// derivedExtra is the parameters.extra its inputs give a bench: none for
// a size study, which builds and serves nothing. A bench that serves
// records the canary's times, the profile's warm-up, the app's CPU mode
// (and quota), the seed's size, and with rows on Postgres the server
// role's package version, settings, CPUs and memory, and those rows.
func derivedExtra(st *study.Study, hp *hostprofile.Profile, table profile.Profile, lab stackenv.Lab, rows []string) (map[string]string, error) {
	ex := map[string]string{}
	if st.Size != nil {
		return ex, nil
	}
	cpu, err := hp.AppCPU()
	if err != nil {
		return nil, err
	}
	ex["cpu_canary"] = cpuCanaryWhen
	ex["warmup"], ex["warmup_max_s"] = table.WarmupScope(), strconv.Itoa(table.WarmupMaxS)
	ex["app_cpu_mode"] = cpu.Mode
	if cpu.Quota != "" {
		ex["app_cpu_quota"] = cpu.Quota
	}
	ex["seed"] = strings.Join(st.Seed.Args(), " ")
	var pg []string
	for _, r := range rows {
		if st.DatabaseOf(r) == study.DatabasePostgres {
			pg = append(pg, r)
		}
	}
	if len(pg) > 0 {
		if ex["postgres_version"], err = lab.PostgresVersion(); err != nil {
			return nil, err
		}
		if ex["postgres_settings"], err = lab.PostgresSettings(); err != nil {
			return nil, err
		}
		for _, k := range []string{"DB_CPUS", "DB_MEMORY"} {
			if hp.Set[k] == "" {
				return nil, fmt.Errorf("host profile %s: %s is not set (a row on Postgres runs the server role there)", hp.Path, k)
			}
		}
		ex["postgres_cpus"], ex["postgres_memory"] = hp.Set["DB_CPUS"], hp.Set["DB_MEMORY"]
		ex["postgres_rows"] = strings.Join(pg, ",")
	}
	for k, v := range ex {
		if err := manifest.CheckExtra(k, v); err != nil {
			return nil, err
		}
	}
	return ex, nil
}

// rowInfo says how each row runs: its stack and a variant's environment;
// in a bench that serves, its request slots (a variant's, else its
// stack's REQUEST_SLOTS) and its contract (stackenv decides it). A size
// study's rows build and serve nothing: they have neither.
func rowInfo(st *study.Study, lab stackenv.Lab, rows []string) (map[string]manifest.RowInfo, error) {
	out := map[string]manifest.RowInfo{}
	for _, r := range rows {
		info := manifest.RowInfo{Stack: st.StackOf(r)}
		v := st.Variant(r)
		if v != nil {
			info.Env = v.Env
		}
		if st.Size == nil {
			s, err := lab.Read(info.Stack)
			if err != nil {
				return nil, err
			}
			info.RequestSlots, info.Contract = s.Slots(), s.Contract()
			if v != nil && v.Slots > 0 {
				info.RequestSlots = v.Slots
			}
		}
		out[r] = info
	}
	return out, nil
}
