// Package loadrun coordinates one load curve across several runners — CLI
// processes (`duplexscope run --load-curve … --run-id R --shard i/n
// --upload URL`) and browser pages (/load?run_id=R&shard=i/n) — through
// the duplexscope server, so N sessions of a level really run at once
// whoever runs them, and anyone can watch the pooled curve grow.
//
// The protocol, over the server's HTTP API:
//
//	POST /api/loadruns/{run}/ready     {"level":N,"shard":i,"shards":n,"levels":[…]}
//	     → 200 {"run_id","level","shards","ready":[…]} once every shard is ready for level N
//	       (the barrier that starts a level), 504 when some runner does not come
//	POST /api/loadruns/{run}/sessions  {"shard":i,"shards":n,"levels":[…],"sessions":[loadcurve.Session…]}
//	     → 200 Status (a session reported twice — same level and index — replaces the first)
//	GET  /api/loadruns/{run}           → 200 Status: levels recomputed from every session reported
//
// Hub is the server side: in memory, bounded (the oldest runs are
// forgotten), no timers of its own — a barrier waits on the caller's
// context. Client is the runners' side (native and wasm: net/http).
// What is archived is each runner's shard report (run_id + shard), which
// the archive merges by pooling load_curve.sessions; the hub only serves
// the live view and the barrier.
package loadrun
