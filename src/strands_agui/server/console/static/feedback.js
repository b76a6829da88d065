// Thumbs under each answer: POST {path}/threads/{threadId}/feedback {messageId, rating} (docs/threads.md).
// Self-contained: views.js calls `thumbs` for an assistant message when the page passes `ctx.feedback`
// ({path, threadId}). A server without threads answers 404: the buttons then say so and stay off.
"use strict";

const sent = new Map();  // message id -> "up" | "down" | "unkept"

export function thumbs(item, m, feedback) {
  if (!m.content || !feedback) return;
  let bar = item.querySelector(":scope > .feedback");
  if (!bar) {
    bar = document.createElement("div");
    bar.className = "feedback";
    bar.dataset.testid = "feedback";
    for (const [rating, label, title] of [["up", "👍", "A good answer"], ["down", "👎", "A bad answer"]]) {
      const button = document.createElement("button");
      Object.assign(button, { type: "button", textContent: label, title });
      button.dataset.testid = `thumb-${rating}`;
      button.dataset.rating = rating;
      button.addEventListener("click", () => rate(bar, m.id, rating, feedback));
      bar.append(button);
    }
  }
  if (item.lastElementChild !== bar) item.append(bar);  // under everything the message holds, its tool cards too
  show(bar, sent.get(m.id));
}

async function rate(bar, messageId, rating, { path, threadId }) {
  const url = `${path.replace(/\/$/, "")}/threads/${encodeURIComponent(threadId)}/feedback`;
  const response = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ messageId, rating }) }).catch(() => null);
  sent.set(messageId, response?.ok ? rating : "unkept");
  show(bar, sent.get(messageId));
}

function show(bar, state) {
  bar.dataset.rated = state || "";
  for (const button of bar.querySelectorAll("button")) {
    button.setAttribute("aria-pressed", String(button.dataset.rating === state));
    button.disabled = state === "unkept";
  }
  bar.title = state === "unkept" ? "This server keeps no threads: feedback is not kept" : "";
}
