package app

import (
	"reflect"
	"testing"
)

// TestConnectPanelStableAcrossSnapshots: go-app re-renders a child
// component when one of its exported fields is not reflect.DeepEqual to
// the previous render's, and func values never are. The connect panel's
// fields must therefore be equal from one live snapshot to the next (the
// form is re-rendered only when the settings, the notes or the running
// state change), and differ when a run starts.
func TestConnectPanelStableAcrossSnapshots(t *testing.T) {
	t.Parallel()
	p := newDashboardPage()
	p.settings = DefaultSettings("localhost:8080", false)
	p.snap = liveSnapshot{Phase: phaseStreaming, Status: "update 1"}
	before := p.connectPanel()
	p.snap = liveSnapshot{Phase: phaseStreaming, Status: "update 2", SentS: 1.5, Responses: 1}
	after := p.connectPanel()
	if f := changedFields(before, after); len(f) > 0 {
		t.Errorf("a new snapshot changes the connect panel's fields %v: go-app would re-render the form with every update", f)
	}
	p.snap = liveSnapshot{Phase: phaseDone}
	if f := changedFields(before, p.connectPanel()); !reflect.DeepEqual(f, []string{"Running"}) {
		t.Errorf("the run's end changed fields %v, want [Running]", f)
	}
}

// changedFields names the exported fields of two components that go-app's
// update would copy (those not reflect.DeepEqual).
func changedFields(a, b any) []string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	var out []string
	for i := range va.NumField() {
		f := va.Type().Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, f.Name)
		}
	}
	return out
}
