package render

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strings"

	"stacklab/analysis/stat"
	"stacklab/analysis/summary"
	"stacklab/analysis/units"
)

// HTML renders report.html: one file, no script, no fetch; the charts are
// inline SVG so the page reads the same offline and without JavaScript.
func HTML(s *summary.Summary) []byte { return htmlOf(s.Folder, blocks(s)) }

// htmlOf lays out any document's blocks as one page titled title.
func htmlOf(title string, bls []block) []byte {
	var b bytes.Buffer
	b.WriteString(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>` + html.EscapeString(title) + `</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; max-width: 84rem; margin: 2rem auto; padding: 0 1rem; color: #1b1f24; }
table { border-collapse: collapse; margin: .5rem 0 1rem; display: block; overflow-x: auto; }
th, td { border: 1px solid #c9ced6; padding: .2rem .5rem; }
td { white-space: nowrap; }
td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: .5rem 0 1.5rem; }
figcaption { font-size: 13px; color: #4a525c; }
svg.chart text { font: 12px system-ui, sans-serif; fill: #1b1f24; }
svg.chart .bar { fill: #3b6ea8; }
svg.chart .bar.s1, svg.chart .key.s1 { fill: #d08a2e; }
svg.chart .key.s0 { fill: #3b6ea8; }
svg.chart .bar.failed { fill: #b3261e; }
svg.chart .whisker { stroke: #1b1f24; stroke-width: 1.5; }
svg.chart .axis { stroke: #8a929c; }
</style>
</head>
<body>
`)
	for _, bl := range bls {
		switch bl.kind {
		case heading:
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", bl.level, inline(bl.text), bl.level)
		case para:
			fmt.Fprintf(&b, "<p>%s</p>\n", inline(bl.text))
		case list:
			b.WriteString("<ul>\n")
			for _, it := range bl.items {
				fmt.Fprintf(&b, "<li>%s</li>\n", inline(it))
			}
			b.WriteString("</ul>\n")
		case table:
			htmlTable(&b, bl)
		case chart:
			svgChart(&b, bl.chart)
		}
	}
	b.WriteString("</body>\n</html>\n")
	return b.Bytes()
}

// inline escapes text and turns the Markdown **bold** the blocks use into
// <strong>.
func inline(s string) string {
	parts := strings.Split(html.EscapeString(s), "**")
	var b strings.Builder
	for i, part := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<strong>" + part + "</strong>")
		} else {
			if i%2 == 1 {
				b.WriteString("**")
			}
			b.WriteString(part)
		}
	}
	return b.String()
}

func htmlTable(b *bytes.Buffer, t block) {
	b.WriteString("<table>\n<tr>")
	for i, hd := range t.header {
		fmt.Fprintf(b, "<th%s>%s</th>", class(t.right[i]), html.EscapeString(hd))
	}
	b.WriteString("</tr>\n")
	for _, r := range t.rows {
		b.WriteString("<tr>")
		for i, c := range r {
			fmt.Fprintf(b, "<td%s>%s</td>", class(t.right[i]), html.EscapeString(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
}

func class(right bool) string {
	if right {
		return ` class="r"`
	}
	return ""
}

// chartSpec is a horizontal bar chart: one bar per stack (or per stack and
// series), drawn at the median with a whisker from min to max.
type chartSpec struct {
	id, title string
	series    []string // legend, when there is more than one series
	bars      []bar
	format    func(float64) string

	// line makes it a line chart (capacity.go) instead of bars.
	line *lineSpec
}

type bar struct {
	label     string
	series    int
	r         stat.Range
	failed    bool
	missing   bool
	saturated bool
}

func chartBlock(c *chartSpec) block { return block{kind: chart, chart: c} }

func rateChart(s *summary.Summary, ct *summary.CaseTable, withCeilings bool) *chartSpec {
	c := &chartSpec{id: "rate-" + ct.Case, title: ct.Case + ": req/s (2xx only), median with min–max over runs", format: units.Rate}
	rows := ct.Rows
	if withCeilings {
		rows = append(append([]summary.Row{}, ct.Ceilings...), rows...)
	}
	for _, r := range rows {
		c.bars = append(c.bars, bar{label: rowLabel(r), r: r.ReqPerSec, failed: len(r.Failed) > 0, missing: r.ReqPerSec.N == 0,
			saturated: len(r.Generator.SaturatedRuns) > 0})
	}
	return c
}

func p99Chart(s *summary.Summary, ct *summary.CaseTable) *chartSpec {
	c := &chartSpec{id: "p99-" + ct.Case, title: ct.Case + ": p99 latency in ms, median with min–max over runs", format: units.Ms}
	for _, r := range ct.Rows {
		c.bars = append(c.bars, bar{label: rowLabel(r), r: r.P99Ms, failed: len(r.Failed) > 0, missing: r.P99Ms.N == 0})
	}
	return c
}

// rowLabel names a row in a chart: the stack, and the setting of a swept case.
func rowLabel(r summary.Row) string {
	if r.Setting != "" {
		return r.Stack + " · " + r.Setting
	}
	return r.Stack
}

func memoryChart(s *summary.Summary) *chartSpec {
	c := &chartSpec{id: "memory", title: "memory: idle and after load, median with min–max over runs",
		series: []string{"idle", "after load"}, format: units.Bytes}
	for _, r := range s.Resources {
		idle, after := stat.Range{}, stat.Range{}
		if r.MemIdleBytes != nil {
			idle, after = *r.MemIdleBytes, *r.MemAfterBytes
		}
		c.bars = append(c.bars,
			bar{label: r.Stack, series: 0, r: idle, missing: idle.N == 0},
			bar{label: r.Stack, series: 1, r: after, missing: after.N == 0})
	}
	return c
}

// Geometry of a chart, in CSS pixels.
const (
	chartW   = 720
	labelW   = 170
	valueW   = 110
	rowH     = 24
	barH     = 16
	topPad   = 8
	legendH  = 20
	plotLeft = labelW + 6
)

func svgChart(b *bytes.Buffer, c *chartSpec) {
	if c.line != nil {
		svgLine(b, c)
		return
	}
	top := topPad
	if len(c.series) > 1 {
		top += legendH
	}
	height := top + rowH*len(c.bars) + 8
	top0 := 0.0
	for _, br := range c.bars {
		top0 = math.Max(top0, math.Max(br.r.Max, br.r.Median))
	}
	if top0 <= 0 {
		top0 = 1
	}
	plotW := float64(chartW - plotLeft - valueW)
	x := func(v float64) float64 { return float64(plotLeft) + plotW*v/top0 }

	drawn := 0
	for _, br := range c.bars {
		if !br.missing {
			drawn++
		}
	}
	// data-bars lets a test check that the browser drew every bar.
	fmt.Fprintf(b, "<figure>\n<svg class=\"chart\" id=\"%s\" data-bars=\"%d\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n",
		html.EscapeString(c.id), drawn, chartW, height, chartW, height, html.EscapeString(c.title))
	if len(c.series) > 1 {
		for i, name := range c.series {
			lx := plotLeft + i*120
			fmt.Fprintf(b, "<rect class=\"key s%d\" x=\"%d\" y=\"%d\" width=\"12\" height=\"12\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
				i, lx, topPad, lx+16, topPad+11, html.EscapeString(name))
		}
	}
	fmt.Fprintf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", plotLeft, top, plotLeft, height-4)
	for i, br := range c.bars {
		y := top + i*rowH
		label := br.label
		if len(c.series) > 1 && br.series > 0 {
			label = ""
		}
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", labelW, y+barH-3, html.EscapeString(label))
		if br.missing {
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\">not measured</text>\n", plotLeft+4, y+barH-3)
			continue
		}
		cls := fmt.Sprintf("bar s%d", br.series)
		if br.failed {
			cls += " failed"
		}
		w := math.Max(1, x(br.r.Median)-float64(plotLeft))
		fmt.Fprintf(b, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>%s</title></rect>\n",
			cls, plotLeft, y, w, barH, html.EscapeString(rangeWith(br.r, c.format)))
		if br.r.N > 1 {
			mid := float64(y) + barH/2
			fmt.Fprintf(b, "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x(br.r.Min), mid, x(br.r.Max), mid)
			fmt.Fprintf(b, "<line class=\"whisker\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x(br.r.Min), y+3, x(br.r.Min), y+barH-3)
			fmt.Fprintf(b, "<line class=\"whisker\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", x(br.r.Max), y+3, x(br.r.Max), y+barH-3)
		}
		mark := ""
		if br.failed {
			mark = " ✗"
		}
		if br.saturated {
			mark += " (generator saturated)"
		}
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%d\">%s%s</text>\n", x(math.Max(br.r.Max, br.r.Median))+6, y+barH-3, html.EscapeString(c.format(br.r.Median)), mark)
	}
	fmt.Fprintf(b, "</svg>\n<figcaption>%s</figcaption>\n</figure>\n", html.EscapeString(c.title))
}
