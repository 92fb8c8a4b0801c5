//go:build !js

package server

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type serverMetrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	errors   *prometheus.CounterVec
	uploads  *prometheus.CounterVec
	sessions *prometheus.CounterVec
	active   *prometheus.GaugeVec
	inflight prometheus.Gauge
}

func newServerMetrics(reg *prometheus.Registry) (*serverMetrics, error) {
	m := &serverMetrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "duplexscope_http_requests_total", Help: "HTTP requests by route pattern and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "duplexscope_http_request_duration_seconds", Help: "HTTP request latency by route pattern (server wall clock).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"route"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "duplexscope_http_errors_total", Help: "HTTP responses with status ≥ 500 by route.",
		}, []string{"route"}),
		uploads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "duplexscope_uploads_total", Help: "Uploads by kind (report, import, attachment) and result (created, replayed, invalid, rejected, error).",
		}, []string{"kind", "result"}),
		sessions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "duplexscope_sessions_total", Help: "Websocket sessions started, by kind (sim, proxy).",
		}, []string{"kind"}),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "duplexscope_sessions_active", Help: "Websocket sessions open now, by kind (sim, proxy).",
		}, []string{"kind"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "duplexscope_http_requests_in_flight", Help: "HTTP requests being handled now (graceful shutdown waits for them).",
		}),
	}
	for _, c := range []prometheus.Collector{m.inflight, m.requests, m.latency, m.errors, m.uploads, m.sessions, m.active,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := reg.Register(c); err != nil {
			if _, ok := err.(prometheus.AlreadyRegisteredError); !ok {
				return nil, err
			}
		}
	}
	return m, nil
}

func (s *Server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
}

// countSessions counts websocket upgrades through h (the simulator).
func (s *Server) countSessions(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" {
			s.metrics.sessions.WithLabelValues("sim").Inc()
			g := s.metrics.active.WithLabelValues("sim")
			g.Inc()
			defer g.Dec()
		}
		h.ServeHTTP(w, r)
	})
}
