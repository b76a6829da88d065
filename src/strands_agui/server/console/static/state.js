// The shared state drawn as what it is: a recipe as a recipe card, a plan as steps that tick off, anything
// else as a readable tree. Every value goes on the page through textContent.
"use strict";

import { el } from "./dom.js";

const STEP_ICON = { pending: "○", in_progress: "◔", completed: "✓", failed: "✕", skipped: "–", stopped: "■" };
const SETTLED = { stopped: "stopped", cancelled: "cancelled", error: "run failed", unreachable: "server unreachable",
  ended: "its run ended" };  // ended: a thread restored after a reload, no run on it

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isPlan = (steps) => Array.isArray(steps) && steps.length > 0 && steps.every((s) => isObject(s) && typeof s.description === "string");

// The recipe card is a form: an edit changes the thread's state (sent with the next run), as the agent's
// changes arrive through it. `edit(recipe)` gets the whole edited recipe.
function field(value, attrs, onChange) {
  const input = el("input", { value: String(value ?? ""), ...attrs });
  input.addEventListener("change", () => onChange(input.value));
  return input;
}

function ingredientRow(item, index, recipe, edit) {
  const li = el("li", { "data-testid": "ingredient" });
  const set = (key) => (value) => edit({ ...recipe, ingredients: recipe.ingredients.map((x, k) => (k === index ? { ...x, [key]: value } : x)) });
  const remove = el("button", { type: "button", class: "icon-button", "aria-label": `Remove ${item.name ?? "ingredient"}`, "data-testid": "remove-ingredient" }, "×");
  remove.addEventListener("click", () => edit({ ...recipe, ingredients: recipe.ingredients.filter((_, k) => k !== index) }));
  li.append(el("span", { class: "emoji", "aria-hidden": "true" }, String(item.icon ?? "•")),
    field(item.name, { class: "ingredient-name", "aria-label": "Ingredient", "data-testid": "ingredient-name" }, set("name")),
    field(item.amount, { class: "ingredient-amount", "aria-label": "Amount", "data-testid": "ingredient-amount" }, set("amount")), remove);
  return li;
}

function recipeView(recipe, edit) {
  const r = { ...recipe, ingredients: (Array.isArray(recipe.ingredients) ? recipe.ingredients : []).map((i) => (isObject(i) ? i : { name: String(i) })) };
  const card = el("article", { class: "recipe", "data-testid": "recipe" });
  const title = field(r.title ?? "Recipe", { class: "recipe-title", "aria-label": "Title", "data-testid": "recipe-title" }, (v) => edit({ ...r, title: v }));
  card.append(title);
  const meta = el("div", { class: "chips" });
  meta.append(field(r.skill_level, { class: "chip chip-input", "aria-label": "Skill level", placeholder: "skill", "data-testid": "recipe-skill" }, (v) => edit({ ...r, skill_level: v })),
    field(r.cooking_time, { class: "chip chip-input", "aria-label": "Cooking time", placeholder: "time", "data-testid": "recipe-time" }, (v) => edit({ ...r, cooking_time: v })));
  for (const p of Array.isArray(r.special_preferences) ? r.special_preferences : []) {
    meta.append(el("span", { class: "chip chip-accent", "data-testid": "recipe-preference" }, String(p)));
  }
  card.append(meta, el("h4", {}, "Ingredients"));
  const ingredients = el("ul", { class: "ingredients", "data-testid": "recipe-ingredients" });
  r.ingredients.forEach((item, k) => ingredients.append(ingredientRow(item, k, r, edit)));
  const add = el("button", { type: "button", class: "add-ingredient", "data-testid": "add-ingredient" }, "+ Add ingredient");
  add.addEventListener("click", () => edit({ ...r, ingredients: [...r.ingredients, { icon: "•", name: "", amount: "" }] }));
  card.append(ingredients, add, el("h4", {}, "Instructions"));
  const steps = el("textarea", { class: "instructions", rows: "4", "aria-label": "Instructions, one step a line", "data-testid": "recipe-instructions" });
  steps.value = (Array.isArray(r.instructions) ? r.instructions : []).map(String).join("\n");
  steps.rows = Math.max(3, steps.value.split("\n").length + 1);  // grows with the steps: no scroller of its own
  steps.addEventListener("change", () => edit({ ...r, instructions: steps.value.split("\n").map((x) => x.trim()).filter(Boolean) }));
  card.append(steps, el("p", { class: "muted hint" }, "Edit anything: the agent gets the recipe with your next message."));
  return card;
}

// `settled`: the run that was working through the plan ended without finishing it (stopped, cancelled,
// failed): its open steps say so instead of "pending" (the state itself is the agent's and is kept).
function planView(steps, settled) {
  const done = steps.filter((s) => s.status === "completed").length;
  const card = el("article", { class: "plan", "data-testid": "plan" });
  const head = el("div", { class: "plan-head" });
  const open = steps.length - done;
  const why = settled && open ? ` · ${SETTLED[settled] || settled}` : "";
  head.append(el("h3", {}, "Plan"), el("span", { class: "muted", "data-testid": "plan-progress" }, `${done} / ${steps.length} done${why}`));
  const bar = el("div", { class: "progress", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": String(steps.length), "aria-valuenow": String(done) });
  const fill = el("div", { class: "progress-fill" });
  fill.style.width = `${Math.round((100 * done) / steps.length)}%`;
  bar.append(fill);
  const list = el("ol", { class: "steps" });
  for (const s of steps) {
    const own = String(s.status || "pending");
    const status = settled && (own === "pending" || own === "in_progress") ? "stopped" : own;
    const li = el("li", { class: "step", "data-testid": "plan-step", "data-status": status });
    li.append(el("span", { class: "step-icon", "aria-hidden": "true" }, STEP_ICON[status] || "•"),
      el("span", { class: "step-text" }, s.description), el("span", { class: "badge" }, status === "stopped" ? `not done (${SETTLED[settled] || settled})` : status.replace("_", " ")));
    list.append(li);
  }
  card.append(head, bar, list);
  return card;
}

function treeView(value, depth = 0) {
  if (!isObject(value) && !Array.isArray(value)) return el("span", { class: `value value-${value === null ? "null" : typeof value}` }, JSON.stringify(value));
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  if (!entries.length) return el("span", { class: "muted" }, Array.isArray(value) ? "(empty list)" : "(empty)");
  const dl = el("dl", { class: "tree" });
  for (const [k, v] of entries) {
    dl.append(el("dt", {}, k));
    const dd = el("dd", {});
    dd.append(depth > 6 ? el("span", { class: "muted" }, "…") : treeView(v, depth + 1));
    dl.append(dd);
  }
  return dl;
}

// Draw `state` into `container`; the raw JSON stays one click away. `onEdit(state)`: the user changed it.
// `settled`: how the thread's last run ended when it did not finish ("stopped", "error"...), else "".
export function renderState(container, state, onEdit = () => {}, { settled = "" } = {}) {
  const json = JSON.stringify(state ?? {}, null, 2);
  if (container.dataset.json === json && container.dataset.settled === settled) return;
  container.dataset.json = json;
  container.dataset.settled = settled;
  const views = [];
  if (isObject(state) && isObject(state.recipe)) views.push(recipeView(state.recipe, (recipe) => onEdit({ ...state, recipe })));
  if (isObject(state) && isPlan(state.steps)) views.push(planView(state.steps, settled));
  const rest = isObject(state) ? Object.fromEntries(Object.entries(state).filter(([k]) => !(k === "recipe" && isObject(state.recipe)) && !(k === "steps" && isPlan(state.steps)))) : state;
  if (rest !== null && rest !== undefined && (!isObject(rest) || Object.keys(rest).length)) {
    const other = el("section", { class: "state-tree", "data-testid": "state-tree" });
    if (views.length) other.append(el("h4", {}, "Other state"));
    other.append(treeView(rest));
    views.push(other);
  }
  if (!views.length) views.push(el("p", { class: "muted empty" }, "No shared state in this thread yet."));
  const raw = el("details", { class: "raw-json" });
  raw.append(el("summary", {}, "JSON"), el("pre", { "data-testid": "state-json" }, json));
  container.replaceChildren(...views, raw);
}
