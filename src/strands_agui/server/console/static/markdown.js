// Markdown for what the model writes, through the vendored markdown-it with raw HTML off: any HTML in the
// text is escaped and shown as text, link targets are checked by markdown-it's validateLink (no
// javascript:, vbscript:, file:, data:), images are not rendered (the page loads nothing a model names),
// and links open in a new tab without the opener. The page's Content-Security-Policy is the second wall.
"use strict";

const md = window.markdownit({ html: false, linkify: true, breaks: true, typographer: false });
md.disable(["image"]);

const renderToken = (tokens, idx, options, env, self) => self.renderToken(tokens, idx, options);
const linkOpen = md.renderer.rules.link_open || renderToken;
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet("target", "_blank");
  tokens[idx].attrSet("rel", "noopener noreferrer nofollow");
  return linkOpen(tokens, idx, options, env, self);
};

const rendered = new WeakMap();  // node -> the text it shows

// Render `text` into `node` (only when it changed since the last render of this node).
export function renderMarkdown(node, text) {
  if (rendered.get(node) === text) return;
  rendered.set(node, text);
  node.innerHTML = md.render(text);
}
