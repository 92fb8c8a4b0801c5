package app

import (
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// pubSource is the component whose context a run publishes from (the
// page that started it); pubObserver observes the published state. Both
// take their context in OnPreRender too: go-app calls OnMount only in the
// browser, and this test runs natively.
type pubSource struct {
	app.Compo
	ctx     app.Context
	renders int
}

func (c *pubSource) OnMount(ctx app.Context)     { c.ctx = ctx }
func (c *pubSource) OnPreRender(ctx app.Context) { c.ctx = ctx }
func (c *pubSource) Render() app.UI              { c.renders++; return app.Div() }

type pubObserver struct {
	app.Compo
	got     int
	renders int
}

func (c *pubObserver) OnMount(ctx app.Context)     { c.observe(ctx) }
func (c *pubObserver) OnPreRender(ctx app.Context) { c.observe(ctx) }
func (c *pubObserver) observe(ctx app.Context)     { ctx.ObserveState("test-published", &c.got) }
func (c *pubObserver) Render() app.UI              { c.renders++; return app.Div() }

type pubPage struct {
	app.Compo
	src *pubSource
	obs *pubObserver
}

func (p *pubPage) Render() app.UI { return app.Div().Body(p.src, p.obs) }

// TestPublisherRendersOnlyObservers: a published snapshot reaches the
// state's observers and renders them alone; the component whose context
// the run publishes from is not rendered again (it was, with the old
// snapshot, when the publisher dispatched through that context).
func TestPublisherRendersOnlyObservers(t *testing.T) {
	e := app.NewTestEngine()
	p := &pubPage{src: &pubSource{}, obs: &pubObserver{}}
	if err := e.Load(p); err != nil {
		t.Fatal(err)
	}
	e.ConsumeAll()
	if !p.src.Mounted() || !p.obs.Mounted() {
		t.Fatal("the test page was not mounted")
	}
	p.src.renders, p.obs.renders = 0, 0

	publish := publisher[int](p.src.ctx, "test-published")
	done := make(chan struct{})
	go func() { // a run publishes from its own goroutine
		defer close(done)
		v := 7
		publish(&v)
	}()
	<-done
	e.ConsumeAll()
	if p.obs.got != 7 || p.obs.renders != 1 {
		t.Errorf("observer: got %d after %d renders, want 7 after 1", p.obs.got, p.obs.renders)
	}
	if p.src.renders != 0 {
		t.Errorf("the publishing component rendered %d times, want 0: only the state's observers render", p.src.renders)
	}
}
