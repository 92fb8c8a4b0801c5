package chart

// Theme is the colours of a chart's own text (title, legend) and grid
// lines, chosen for the background of the page the chart is drawn on, so a
// title is never drawn in the page's own background colour.
type Theme struct {
	Title  string // title text
	Legend string // legend text
	Split  string // value-axis split lines
}

var (
	// DarkTheme suits the live page (web/app.css: --ink, --muted, --line
	// on a #0f1c27 background).
	DarkTheme = Theme{Title: "#e6eef5", Legend: "#8fa6b8", Split: "#24405a"}
	// LightTheme suits the server-rendered share, history and compare
	// pages (server/assets/share.css: body text, --muted, --line on white).
	LightTheme = Theme{Title: "#202124", Legend: "#5f6368", Split: "#dadce0"}
)
