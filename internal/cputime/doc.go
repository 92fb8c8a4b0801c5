// Package cputime reads this process's CPU time, which the benchmarks
// report per op or per run because a shared, overloaded machine distorts it
// far less than wall time.
package cputime
