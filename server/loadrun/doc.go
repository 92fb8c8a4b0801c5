// Package loadrun coordinates one load curve across several runners — CLI
// processes (`duplexscope run --load-curve … --run-id R --shard i/n
// --upload URL`) and browser pages (/load?run_id=R&shard=i/n) — through
// the duplexscope server, so N sessions of a level really run at once
// whoever runs them, and anyone can watch the pooled curve grow.
//
// The protocol, over the server's HTTP API:
//
//	POST /api/loadruns/{run}           {"shards":n,"levels":[…]}
//	     → 201 {"run_id","shards","run_cap","created":true,"expires_at"} (200, created false, when the
//	       request already carries the run's capability; 403 when the run exists and it does not)
//	POST /api/loadruns/{run}/ready     {"level":N,"shard":i,"shards":n,"levels":[…]}
//	     → 200 {"run_id","level","shards","ready":[…]} once every shard is ready for level N
//	       (the barrier that starts a level), 504 when some runner does not come
//	POST /api/loadruns/{run}/sessions  {"shard":i,"shards":n,"levels":[…],"sessions":[loadcurve.Session…]}
//	     → 200 Status (a session reported twice — same level and index — replaces the first)
//	GET  /api/loadruns/{run}           → 200 Status: levels recomputed from every session reported
//
// Run capability: the request that creates a run (create, or a first
// ready or sessions post) gets its capability in run_cap; every later
// write to the run must carry it in the X-Duplexscope-Run-Cap header
// (403 otherwise). A creator may bring its own (22–128 [A-Za-z0-9_-]), so
// shards started together can share a secret. Page links carry it as
// &cap=…, CLI shards as --run-cap (or $DUPLEXSCOPE_RUN_CAP).
//
// Hub is the server side: in memory, bounded (at most MaxRuns runs,
// MaxRunBytes each and MaxHubBytes together — the least recently updated
// are forgotten first; a run idle for RunTTL expires), no timers of its own — a barrier waits on the caller's
// context. Client is the runners' side (native and wasm: server/apiclient).
// What is archived is each runner's shard report (run_id + shard), which
// the archive merges by pooling load_curve.sessions; the hub only serves
// the live view and the barrier.
package loadrun
