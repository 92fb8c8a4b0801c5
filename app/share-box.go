package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// shareBox shows the share link and downloads after a run.
type shareBox struct {
	app.Compo
	Share shareInfo
	Phase string
}

func (b *shareBox) Render() app.UI {
	share := b.Share
	if share.URL == "" && !share.Pending {
		return app.Div().ID("share").Attr("hidden", true)
	}
	return app.Elem("section").Class("ds-panel ds-share").ID("share").Attr("data-report-id", share.ID).Body(
		app.If(share.URL != "", func() app.UI {
			return app.P().Body(app.Text("Report saved — share this link: "), app.Elem("a").ID("share-link").Attr("href", share.URL).Attr("target", "_blank").Text(share.URL))
		}).ElseIf(share.SignIn, func() app.UI {
			return app.P().Class("ds-error").ID("share-signin").Body(
				app.Text("This archive needs sign-in to save: "), app.Elem("a").ID("signin-link").Attr("href", "/signin?next=/").Text("sign in at /signin"),
				app.Text(" (your run is kept in this browser and saved after you sign in) / "),
				app.Elem("a").Attr("href", share.JSONURL).Attr("download", "report.json").Text("Download report JSON"))
		}).Else(func() app.UI {
			return app.P().Class("ds-error").ID("share-pending").Text("Not uploaded yet (" + share.Error + "): the run is kept in this browser until the archive takes it.")
		}),
		app.If(share.Progress != "", func() app.UI {
			// Announced politely: each retry and the delivery.
			return app.P().ID("upload-progress").Class("ds-hint").Attr("role", "status").Attr("aria-live", "polite").Text(share.Progress)
		}),
		app.P().Class("ds-hint").Body(
			app.Text("Download: "),
			app.Elem("a").ID("dl-json").Attr("href", share.JSONURL).Attr("download", "report.json").Text("report JSON"), app.Text(" · "),
			app.Elem("a").ID("dl-vllm").Attr("href", share.VLLMURL).Attr("download", "duplex_metrics.json").Text("vLLM duplex_metrics.json"), app.Text(" · "),
			app.Elem("a").ID("dl-csv").Attr("href", share.CSVURL).Attr("download", "responses.csv").Text("CSV"),
			app.If(share.WireLog != "", func() app.UI {
				return app.Elem("span").Body(app.Text(" · "), app.Elem("a").ID("dl-wire").Attr("href", share.WireLog).Text("wire log"))
			}),
		),
		app.If(share.URL != "" && share.Error != "", func() app.UI { return app.P().Class("ds-hint").Text(share.Error) }),
		app.If(share.URL != "", func() app.UI { return &runLabels{ReportID: share.ID, Capability: share.Capability} }),
	)
}
