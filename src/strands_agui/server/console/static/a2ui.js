// A2UI surfaces drawn in the page: the basic component catalog the a2ui_generative_ui example designs with
// (tooling/a2ui.py, `ag-ui-a2ui-toolkit`), painted while the designer's render_a2ui call streams (its
// TOOL_CALL_ARGS, parsed as far as they go) and settled by the generate_a2ui result's `a2ui_operations`
// (createSurface, updateComponents, updateDataModel). Every text goes on the page through textContent;
// an image is shown only from a data: URL (the page's policy allows nothing from another origin).
// A Button with an action sends it back as the official renderer (@a2ui/web_core v0.9, CopilotKit's
// A2UIProvider) builds it: a click dispatches an `a2ui-action` DOM event (bubbling) whose detail is the
// userAction {name, surfaceId, sourceComponentId, timestamp, context}, the context's bindings resolved from
// the data model (relative paths from the list item the button is drawn in); console.js sends the run.
"use strict";

import { el } from "./dom.js";

export const RENDER_TOOL = "render_a2ui";

// As much of a JSON text as has arrived: every complete member and element, the open containers closed.
export function parsePartialJson(text) {
  if (typeof text !== "string" || !text.trim()) return null;
  try { return JSON.parse(text); } catch { /* still streaming: cut it at its last complete member */ }
  const stack = [];  // open containers: {close, cut (end of the last complete member), key (object awaits a key)}
  let inString = false, escaped = false, scalar = false;
  const completed = (end) => { const top = stack[stack.length - 1]; if (top && (top.close === "]" || !top.key)) top.cut = end; };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') { inString = false; completed(i + 1); }
      continue;
    }
    if (scalar && /[\s,\]}:]/.test(c)) { scalar = false; completed(i); }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") stack.push({ close: c === "{" ? "}" : "]", start: i, cut: i + 1, key: c === "{" });
    else if (c === "}" || c === "]") { stack.pop(); completed(i + 1); }
    else if (c === ":") { if (stack.length) stack[stack.length - 1].key = false; }
    else if (c === ",") { const top = stack[stack.length - 1]; if (top?.close === "}") top.key = true; }
    else if (!/\s/.test(c)) scalar = true;
  }
  if (!stack.length) return null;
  // an element that has no complete member yet ("{" of the next item) is left out, not drawn empty
  while (stack.length > 1 && stack[stack.length - 1].close === "}" && stack[stack.length - 1].cut === stack[stack.length - 1].start + 1) stack.pop();
  let out = text.slice(0, stack[stack.length - 1].cut);
  for (let k = stack.length - 1; k >= 0; k--) out += stack[k].close;
  try { return JSON.parse(out); } catch { return null; }
}

// A surface from the render call's arguments (possibly partial): {surfaceId, components, data, final: false}.
export function surfaceFromArgs(argsText) {
  const args = parsePartialJson(argsText);
  if (!args || typeof args !== "object" || !Array.isArray(args.components)) return null;
  return { surfaceId: String(args.surfaceId || "surface"), components: args.components, data: args.data || {}, final: false };
}

// A surface from a result's `a2ui_operations` envelope, or null when the result is not one.
export function surfaceFromResult(text) {
  let value;
  try { value = JSON.parse(text); } catch { return null; }
  const ops = value && Array.isArray(value.a2ui_operations) ? value.a2ui_operations : null;
  if (!ops) return null;
  const surface = { surfaceId: "surface", components: [], data: {}, final: true };
  for (const op of ops) {
    if (op.createSurface) surface.surfaceId = op.createSurface.surfaceId || surface.surfaceId;
    if (op.updateComponents) {
      const byId = new Map(surface.components.map((c) => [c.id, c]));
      for (const c of op.updateComponents.components || []) byId.set(c.id, c);
      surface.components = [...byId.values()];
    }
    if (op.updateDataModel) surface.data = setAt(surface.data, op.updateDataModel.path || "/", op.updateDataModel.value);
    if (op.deleteSurface) return null;
  }
  return surface.components.length ? surface : null;
}

function setAt(data, path, value) {
  const keys = path.split("/").filter(Boolean);
  if (!keys.length) return value;
  const root = data && typeof data === "object" ? structuredClone(data) : {};
  let node = root;
  keys.slice(0, -1).forEach((k) => { node = node[k] = node[k] && typeof node[k] === "object" ? node[k] : {}; });
  node[keys[keys.length - 1]] = value;
  return root;
}

// A data binding: {path: "/items"} from the data model's root, {path: "name"} from the item being drawn.
function resolve(path, data, scope) {
  if (typeof path !== "string") return undefined;
  let node = path.startsWith("/") ? data : scope;
  for (const key of path.split("/").filter(Boolean)) node = node == null ? undefined : node[key];
  return node;
}

function textOf(value, data, scope) {
  if (value && typeof value === "object" && "path" in value) return resolve(value.path, data, scope) ?? "";
  if (value && typeof value === "object" && "literalString" in value) return value.literalString;
  return value ?? "";
}

const HEADINGS = { h1: "h3", h2: "h3", h3: "h4", h4: "h5", h5: "h6" };

// Draw one component (and its children) of `surface`.
function draw(id, surface, scope, depth) {
  const component = surface.byId.get(id);
  if (!component || depth > 40) return null;  // not streamed yet (or a cycle): nothing
  const name = component.component;
  const kids = (children) => childIds(children, surface, scope).map(([cid, s]) => draw(cid, surface, s, depth + 1)).filter(Boolean);
  const node = (tag, cls) => el(tag, { class: `a2ui-${cls}`, "data-a2ui": name, "data-a2ui-id": id });
  let out;
  switch (name) {
    case "Text": {
      out = el(HEADINGS[component.variant] || (component.variant === "caption" ? "small" : "p"),
        { class: `a2ui-text a2ui-${component.variant || "body"}`, "data-a2ui": name, "data-a2ui-id": id },
        String(textOf(component.text, surface.data, scope)));
      break;
    }
    case "Card": out = node("div", "card"); out.append(...kids(component.child ? [component.child] : component.children)); break;
    case "Column": out = node("div", "column"); out.append(...kids(component.children)); break;
    case "Row": out = node("div", "row"); out.append(...kids(component.children)); break;
    case "List": {
      out = node("ul", "list");
      for (const child of kids(component.children)) { const li = el("li", {}); li.append(child); out.append(li); }
      break;
    }
    case "Divider": out = node("hr", "divider"); break;
    case "Button": {
      const action = actionOf(component.action);
      out = el("button", { type: "button", class: `a2ui-button${component.variant === "primary" ? " a2ui-primary" : ""}`,
        "data-a2ui": name, "data-a2ui-id": id, ...(action ? { "data-action": action.name } : { disabled: "" }) });
      if (action) {
        out.addEventListener("click", (e) => {
          e.currentTarget.dispatchEvent(new CustomEvent("a2ui-action", { bubbles: true, detail: {
            name: action.name, surfaceId: surface.surfaceId, sourceComponentId: id, timestamp: new Date().toISOString(),
            context: resolveContext(action.context, surface.data, scope) } }));
        });
      }
      const inner = component.child ? draw(component.child, surface, scope, depth + 1) : null;
      if (inner) out.append(inner); else out.textContent = String(textOf(component.label ?? component.text, surface.data, scope));
      break;
    }
    case "CheckBox": {
      out = node("label", "checkbox");
      const box = el("input", { type: "checkbox", disabled: "" });
      box.checked = !!textOf(component.value, surface.data, scope);
      out.append(box, document.createTextNode(` ${textOf(component.label, surface.data, scope)}`));
      break;
    }
    case "TextField": {
      out = node("label", "field");
      out.append(el("span", {}, String(textOf(component.label, surface.data, scope))),
        el("input", { value: String(textOf(component.value ?? component.text, surface.data, scope)), readonly: "" }));
      break;
    }
    case "Image": {
      const url = String(textOf(component.url, surface.data, scope));
      out = url.startsWith("data:image/") ? el("img", { class: "a2ui-image", src: url, alt: String(component.alt || ""), "data-a2ui": name })
        : node("span", "placeholder");
      if (out.tagName !== "IMG") out.textContent = `[image${component.alt ? `: ${component.alt}` : ""}]`;
      break;
    }
    case "Icon": out = node("span", "icon"); out.textContent = String(textOf(component.name, surface.data, scope)); break;
    default: out = node("span", "placeholder"); out.textContent = `[${name || "component"}]`;
  }
  return out;
}

// A Button's action -> {name, context} of the event it sends (v0.9 `{event: {name, context: {key: value}}}`;
// v0.8 `{name, context: [{key, value}]}`), or null (none, or a local functionCall: nothing to send).
function actionOf(action) {
  if (!action || typeof action !== "object") return null;
  const event = action.event && typeof action.event === "object" ? action.event : ("name" in action ? action : null);
  if (!event || typeof event.name !== "string" || !event.name) return null;
  let context = event.context && typeof event.context === "object" ? event.context : {};
  if (Array.isArray(context)) context = Object.fromEntries(context.filter((c) => c && typeof c.key === "string").map((c) => [c.key, c.value]));
  return { name: event.name, context };
}

// An action's context with every binding resolved (what the renderer sends: values, never paths).
function resolveContext(context, data, scope) {
  const value = (v) => {
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map(value);
    if (typeof v.path === "string") return structuredCloneSafe(resolve(v.path, data, scope));
    for (const k of ["literalString", "literalNumber", "literalBoolean"]) if (k in v) return v[k];
    if ("call" in v) return null;  // a client-side function: none in this catalog
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, value(x)]));
  };
  return Object.fromEntries(Object.entries(context).map(([k, v]) => [k, value(v)]));
}

function structuredCloneSafe(v) {
  return v === undefined ? null : JSON.parse(JSON.stringify(v));
}

// A children spec -> [[componentId, scope]]: a list of ids, or a template over a list in the data model.
function childIds(children, surface, scope) {
  if (Array.isArray(children)) return children.map((cid) => [cid, scope]);
  if (children && typeof children === "object" && children.componentId) {
    const items = resolve(children.path, surface.data, scope);
    return Array.isArray(items) ? items.map((item) => [children.componentId, item]) : [];
  }
  return [];
}

// The surface as DOM, or null when nothing of it can be drawn yet.
export function renderSurface(surface) {
  const byId = new Map(surface.components.filter((c) => c && typeof c.id === "string" && c.component).map((c) => [c.id, c]));
  const rootId = byId.has("root") ? "root" : surface.components[0]?.id;
  const root = rootId ? draw(rootId, { ...surface, byId }, surface.data, 0) : null;
  if (!root) return null;
  const box = el("section", { class: "a2ui-surface", "data-testid": "a2ui-surface", "data-surface-id": surface.surfaceId,
    "data-final": String(!!surface.final), "aria-label": `A2UI surface ${surface.surfaceId}` });
  box.append(root);
  return box;
}
