package metrics

import (
	"errors"
	"fmt"

	"github.com/duplexscope/duplexscope/trace"
)

// Score computes the conformance output of a decoded trace, in the layout of
// the vectors' *.expected.json (docs/metrics.md#conformance): a session, run or
// engine_tpot object with "kind" first.
//
// Where the reference raises, Score returns an error naming the field
// instead of a guess: a conversion Python cannot do (Fault). A value that
// would print as NaN or ±Inf is refused by the writer (Object.MarshalJSON,
// *NonFiniteError with the value's path).
func Score(doc trace.Document) (Object, error) {
	switch {
	case doc.Session != nil:
		res := ScoreSession(*doc.Session)
		if err := faultsErr(res.Faults); err != nil {
			return nil, err
		}
		return res.Object(), nil
	case doc.Run != nil:
		rep, err := ScoreRun(*doc.Run)
		if err != nil {
			return nil, err
		}
		return rep.RunObject(), nil
	case doc.EngineTPOT != nil:
		res := ScoreEngineTPOT(*doc.EngineTPOT)
		if err := faultsErr(res.Faults); err != nil {
			return nil, err
		}
		return res.Object(), nil
	}
	return nil, fmt.Errorf("metrics: empty trace document (kind %q)", doc.Kind)
}

// faultsErr joins faults into one error (nil when there are none).
func faultsErr(faults []Fault) error {
	errs := make([]error, len(faults))
	for i, f := range faults {
		errs[i] = f
	}
	return errors.Join(errs...)
}
