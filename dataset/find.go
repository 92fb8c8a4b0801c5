package dataset

import "fmt"

// Find returns sample id of dataset src (as Load reads it).
func Find(src, id string) (*Sample, error) {
	ss, err := Load(src, nil)
	if err != nil {
		return nil, err
	}
	for i := range ss {
		if ss[i].SampleID == id {
			return &ss[i], nil
		}
	}
	return nil, fmt.Errorf("dataset %s has no sample %q", src, id)
}
