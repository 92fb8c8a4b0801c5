//go:build !js

package bench

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Machine describes where a run was made.
type Machine struct {
	CPU                string // /proc/cpuinfo model name
	Cores              int    // runtime.NumCPU
	MemoryGB           float64
	Go                 string
	Chromium           string
	OS                 string
	Commit             string // git rev-parse --short HEAD, "-dirty" when the tree has changes
	Date               time.Time
	LoadStart, LoadEnd string // /proc/loadavg 1/5/15-minute averages
}

// DetectMachine fills Machine from /proc, the Go runtime, git and chromium.
func DetectMachine(chromium string) Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, Date: time.Now().UTC()}
	m.CPU = procField("/proc/cpuinfo", "model name")
	if kb, err := strconv.ParseFloat(strings.Fields(procField("/proc/meminfo", "MemTotal") + " 0")[0], 64); err == nil {
		m.MemoryGB = kb / 1024 / 1024
	}
	if out, err := exec.Command(chromium, "--version").Output(); err == nil {
		m.Chromium = strings.TrimSpace(string(out))
	} else {
		m.Chromium = "not found (" + chromium + ")"
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
			m.Commit += "-dirty"
		}
	} else {
		m.Commit = "unknown (no git)"
	}
	m.LoadStart = LoadAverage()
	return m
}

// LoadAverage returns the 1, 5 and 15-minute load averages ("" if unknown).
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// Load1 is the 1-minute load average (0 if unknown).
func Load1() float64 {
	f := strings.Fields(LoadAverage() + " 0")
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
