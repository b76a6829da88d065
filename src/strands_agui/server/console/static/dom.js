// DOM helpers every view uses: an element from its tag, attributes and text; text set only when it changed;
// children put in order. No imports: every view module may import this one, and none imports a view to get them.
"use strict";

export function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

export function setText(node, text) { if (node.textContent !== text) node.textContent = text; }

// Put `wanted` into `container` in this order, reusing the nodes already there.
export function reconcile(container, wanted) {
  wanted.forEach((item, i) => { if (container.children[i] !== item) container.insertBefore(item, container.children[i] || null); });
  while (container.children.length > wanted.length) container.lastChild.remove();
}
