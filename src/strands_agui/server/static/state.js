// The shared state drawn as what it is: a recipe as a recipe card, a plan as steps that tick off, anything
// else as a readable tree. Every value goes on the page through textContent.
"use strict";

import { el } from "./views.js";

const STEP_ICON = { pending: "○", in_progress: "◔", completed: "✓", failed: "✕", skipped: "–" };

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isPlan = (steps) => Array.isArray(steps) && steps.length > 0 && steps.every((s) => isObject(s) && typeof s.description === "string");

function recipeView(recipe) {
  const card = el("article", { class: "recipe", "data-testid": "recipe" });
  card.append(el("h3", { class: "recipe-title", "data-testid": "recipe-title" }, String(recipe.title ?? "Recipe")));
  const meta = el("div", { class: "chips" });
  if (recipe.skill_level) meta.append(el("span", { class: "chip" }, `Skill: ${recipe.skill_level}`));
  if (recipe.cooking_time) meta.append(el("span", { class: "chip" }, `⏱ ${recipe.cooking_time}`));
  for (const p of Array.isArray(recipe.special_preferences) ? recipe.special_preferences : []) {
    meta.append(el("span", { class: "chip chip-accent", "data-testid": "recipe-preference" }, String(p)));
  }
  card.append(meta, el("h4", {}, "Ingredients"));
  const ingredients = el("ul", { class: "ingredients", "data-testid": "recipe-ingredients" });
  for (const i of Array.isArray(recipe.ingredients) ? recipe.ingredients : []) {
    const li = el("li", { "data-testid": "ingredient" });
    const item = isObject(i) ? i : { name: String(i) };
    li.append(el("span", { class: "emoji", "aria-hidden": "true" }, String(item.icon ?? "•")),
      el("span", { class: "ingredient-name" }, String(item.name ?? "")), el("span", { class: "muted" }, String(item.amount ?? "")));
    ingredients.append(li);
  }
  card.append(ingredients, el("h4", {}, "Instructions"));
  const steps = el("ol", { class: "instructions", "data-testid": "recipe-instructions" });
  for (const s of Array.isArray(recipe.instructions) ? recipe.instructions : []) steps.append(el("li", {}, String(s)));
  card.append(steps);
  return card;
}

function planView(steps) {
  const done = steps.filter((s) => s.status === "completed").length;
  const card = el("article", { class: "plan", "data-testid": "plan" });
  const head = el("div", { class: "plan-head" });
  head.append(el("h3", {}, "Plan"), el("span", { class: "muted", "data-testid": "plan-progress" }, `${done} / ${steps.length} done`));
  const bar = el("div", { class: "progress", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": String(steps.length), "aria-valuenow": String(done) });
  const fill = el("div", { class: "progress-fill" });
  fill.style.width = `${Math.round((100 * done) / steps.length)}%`;
  bar.append(fill);
  const list = el("ol", { class: "steps" });
  for (const s of steps) {
    const status = String(s.status || "pending");
    const li = el("li", { class: "step", "data-testid": "plan-step", "data-status": status });
    li.append(el("span", { class: "step-icon", "aria-hidden": "true" }, STEP_ICON[status] || "•"),
      el("span", { class: "step-text" }, s.description), el("span", { class: "badge" }, status.replace("_", " ")));
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

// Draw `state` into `container`; the raw JSON stays one click away.
export function renderState(container, state) {
  const json = JSON.stringify(state ?? {}, null, 2);
  if (container.dataset.json === json) return;
  container.dataset.json = json;
  const views = [];
  if (isObject(state) && isObject(state.recipe)) views.push(recipeView(state.recipe));
  if (isObject(state) && isPlan(state.steps)) views.push(planView(state.steps));
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
