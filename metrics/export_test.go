package metrics

// RoundDefinition exposes the decimal-string definition of Round to tests.
var RoundDefinition = roundString
