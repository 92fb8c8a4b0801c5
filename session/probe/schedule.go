package probe

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// At is a scheduled probe: the standard clip of Kind, mixed in after
// OffsetS seconds of sent input.
type At struct {
	Kind    string
	OffsetS float64
}

// ParseSchedule reads a schedule (the page's probe_s): comma-separated SECONDS (an
// interruption) or KIND@SECONDS entries, seconds of sent input after stream
// start. The whole parameter is refused when an entry is bad, naming it: a
// run with half the intended probes would mislead.
func ParseSchedule(v string) ([]At, error) {
	var out []At
	var bad []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p := At{Kind: KindInterruption}
		sec := f
		if k, s, ok := strings.Cut(f, "@"); ok {
			p.Kind, sec = strings.TrimSpace(k), strings.TrimSpace(s)
		}
		x, err := strconv.ParseFloat(sec, 64)
		if err == nil {
			p.OffsetS = x
			err = Validate(Probe{Kind: p.Kind, OffsetS: x})
		}
		if err != nil {
			bad = append(bad, f)
			continue
		}
		out = append(out, p)
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("probe_s=%q: did not understand %q; want seconds (an interruption) or KIND@SECONDS with KIND one of %s, comma-separated",
			v, bad, strings.Join(Kinds, ", "))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].OffsetS < out[j].OffsetS })
	return out, nil
}

// FormatSchedule writes a schedule (probe_s); interruptions stay bare numbers, the
// form older pages read.
func FormatSchedule(ps []At) string {
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		s := strconv.FormatFloat(p.OffsetS, 'f', -1, 64)
		if p.Kind != KindInterruption {
			s = p.Kind + "@" + s
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}
