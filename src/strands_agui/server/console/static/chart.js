// Charts a tool result asks for, drawn in the page as SVG elements (nothing fetched, no inline style: the
// strict Content-Security-Policy holds). A result is a chart when it is an object with a numeric `values`
// list (render_chart's {title, type: "bar", values, ...}); each value goes on the page through textContent.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 360, HEIGHT = 170, PAD = { top: 14, right: 8, bottom: 22, left: 8 };

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// The numbers of a chart result, or null when `data` is not one.
export function chartValues(data) {
  if (!data || typeof data !== "object" || Array.isArray(data) || !Array.isArray(data.values)) return null;
  const values = data.values.map(Number);
  return values.length && values.length <= 200 && values.every(Number.isFinite) ? values : null;
}

const label = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) < 10 ? 2 : 1));

// A bar chart of `data.values` under `data.title`: a <figure> holding an <svg>.
export function barChart(data) {
  const values = chartValues(data);
  const figure = document.createElement("figure");
  figure.className = "chart";
  figure.dataset.testid = "chart";
  const caption = document.createElement("figcaption");
  caption.textContent = String(data.title ?? "Chart");
  const top = Math.max(0, ...values), bottom = Math.min(0, ...values);
  const span = top - bottom || 1, inner = HEIGHT - PAD.top - PAD.bottom;
  const y = (v) => PAD.top + ((top - v) / span) * inner;
  const slot = (WIDTH - PAD.left - PAD.right) / values.length, bar = Math.max(2, slot * 0.7);
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", class: "chart-svg",
    "aria-label": `${caption.textContent}: ${values.map(label).join(", ")}` });
  chart.append(svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(0), y2: y(0), class: "chart-axis" }));
  values.forEach((v, i) => {
    const x = PAD.left + i * slot + (slot - bar) / 2;
    const rect = svg("rect", { x, y: Math.min(y(v), y(0)), width: bar, height: Math.max(1, Math.abs(y(v) - y(0))),
      rx: 2, class: v < 0 ? "chart-bar negative" : "chart-bar", "data-testid": "chart-bar" });
    rect.append(svg("title", {}, label(v)));
    chart.append(rect);
    if (values.length <= 24) chart.append(svg("text", { x: x + bar / 2, y: v < 0 ? y(v) + 11 : y(v) - 3, class: "chart-value" }, label(v)));
  });
  figure.append(caption, chart);
  return figure;
}
