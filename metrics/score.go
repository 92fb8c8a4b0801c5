package metrics

import (
	"fmt"

	"github.com/duplexscope/duplexscope/trace"
)

// Score computes the conformance output of a decoded trace, in the layout of
// the vectors' *.expected.json (METRICS.md "Conformance"): a session, run or
// engine_tpot object with "kind" first.
func Score(doc trace.Document) (Object, error) {
	switch {
	case doc.Session != nil:
		return ScoreSession(*doc.Session).Object(), nil
	case doc.Run != nil:
		rep, err := ScoreRun(*doc.Run)
		if err != nil {
			return nil, err
		}
		return rep.RunObject(), nil
	case doc.EngineTPOT != nil:
		return ScoreEngineTPOT(*doc.EngineTPOT).Object(), nil
	}
	return nil, fmt.Errorf("metrics: empty trace document (kind %q)", doc.Kind)
}
