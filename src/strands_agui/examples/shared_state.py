"""Shared state: a recipe the user and the agent edit together.

The page keeps ``{"recipe": {...}}`` in AG-UI state and sends it with every run. The adapter:

- puts the current recipe (as JSON) into the prompt (``state_context_builder``);
- publishes the recipe from ``generate_recipe``'s arguments as soon as they are complete
  (``state_from_args`` -> STATE_SNAPSHOT), and again from its result (``state_from_result``);
- skips the helper MESSAGES_SNAPSHOT for this tool: the recipe card is the UI, not the tool card.

Scripted scenario (no ``STRANDS_AGUI_MODEL``): a user message -> ``generate_recipe`` with the current recipe
(read back from the prompt) changed by the words: "recipe for pancakes" sets the title, "vegan",
"vegetarian", "spicy", "high protein", "low carb", "budget", "one pot" add preferences (vegan/vegetarian also
drop what they exclude), "easy"/"advanced" set the skill level, "quick" or "20 minutes" the cooking time,
"add X" / "remove X" / "without X" edit the ingredients; then, after the result, a sentence confirming.

Run: ``python -m strands_agui.examples.shared_state`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any

from ag_ui.core import RunAgentInput
from strands import Agent, tool
from strands.types.content import Messages

from strands_agui import (
    StrandsAgent,
    StrandsAgentConfig,
    Text,
    ToolBehavior,
    ToolCallContext,
    ToolResultContext,
    Turn,
    create_strands_app,
)
from strands_agui.examples._common import call, model, serve, tool_outcomes, user_text

NAME = "shared_state"
DESCRIPTION = "A recipe the user and the agent edit together through AG-UI shared state."
PROMPTS = (  # what the console suggests trying (GET /examples)
    'Make it vegan',
    'Add mushrooms and make it quick',
    'A recipe for pancakes, high protein',
)
FRONTEND_TOOLS: list[Any] = []

SKILL_LEVELS = ("Beginner", "Intermediate", "Advanced")
COOKING_TIMES = ("5 min", "15 min", "30 min", "45 min", "60+ min")
PREFERENCES = ("High Protein", "Low Carb", "Spicy", "Budget-Friendly", "One-Pot Meal", "Vegetarian", "Vegan")

INITIAL_RECIPE: dict[str, Any] = {
    "title": "Make Your Recipe",
    "skill_level": "Intermediate",
    "special_preferences": [],
    "cooking_time": "45 min",
    "ingredients": [
        {"icon": "🥕", "name": "Carrots", "amount": "3 large, grated"},
        {"icon": "🌾", "name": "All-Purpose Flour", "amount": "2 cups"},
    ],
    "instructions": ["Preheat oven to 350°F (175°C)"],
}
INITIAL_STATE = {"recipe": INITIAL_RECIPE}

SYSTEM_PROMPT = """You are a helpful recipe assistant working on a recipe the user sees and edits.
When asked to create or change the recipe:
1. Call generate_recipe ONCE with the COMPLETE updated recipe: title, skill_level (one of Beginner,
   Intermediate, Advanced), special_preferences, cooking_time (one of 5 min, 15 min, 30 min, 45 min, 60+ min),
   ingredients (each {"icon": an emoji, "name", "amount"}) and instructions (a list of steps).
2. Keep what the user did not ask to change.
3. After the tool result, confirm what you changed in one or two sentences."""


@tool
def generate_recipe(recipe: dict) -> dict:
    """Publish the complete updated recipe (always the entire recipe, never just the changes).

    Args:
        recipe: The recipe: title, skill_level, special_preferences, cooking_time, ingredients
            (list of {"icon", "name", "amount"}) and instructions (list of strings).
    """
    return normalize_recipe(recipe)


def normalize_recipe(recipe: Any) -> dict[str, Any]:
    """``recipe`` with every field present and well-typed (missing fields from the initial recipe)."""
    source = recipe if isinstance(recipe, Mapping) else {}
    out = {**copy.deepcopy(INITIAL_RECIPE), **{k: v for k, v in source.items() if v is not None}}
    out["ingredients"] = [
        {"icon": str(i.get("icon") or "🥄"), "name": str(i.get("name") or "Ingredient"),
         "amount": str(i.get("amount") or "")}
        for i in out.get("ingredients") or [] if isinstance(i, Mapping)
    ]
    out["instructions"] = [str(step) for step in out.get("instructions") or []]
    out["special_preferences"] = [str(p) for p in out.get("special_preferences") or []]
    return out


# -- the adapter's hooks ---------------------------------------------------------------------------------

STATE_HEADER = "Current recipe (JSON):"
REQUEST_HEADER = "User request:"


def recipe_prompt(input_data: RunAgentInput, user_message: str) -> str:
    """``state_context_builder``: the prompt carries the recipe the page holds."""
    state = input_data.state if isinstance(input_data.state, Mapping) else {}
    recipe = state.get("recipe")
    if not isinstance(recipe, Mapping):
        return user_message
    return (
        f"{STATE_HEADER}\n{json.dumps(recipe, ensure_ascii=False, indent=2)}\n\n"
        f"{REQUEST_HEADER} {user_message}\n\n"
        "Update the recipe by calling generate_recipe with the complete recipe."
    )


def recipe_from_args(context: ToolCallContext) -> dict[str, Any] | None:
    """``state_from_args``: show the recipe as soon as the call's arguments are complete."""
    args = context.tool_input
    if isinstance(args, Mapping) and isinstance(args.get("recipe"), Mapping):
        return {"recipe": normalize_recipe(args["recipe"])}
    return None


def recipe_from_result(context: ToolResultContext) -> dict[str, Any] | None:
    """``state_from_result``: the recipe as the tool returned it (normalised)."""
    if isinstance(context.result_data, Mapping):
        return {"recipe": dict(context.result_data)}
    return None


CONFIG = StrandsAgentConfig(
    state_context_builder=recipe_prompt,
    tool_behaviors={
        "generate_recipe": ToolBehavior(
            skip_messages_snapshot=True,
            state_from_args=recipe_from_args,
            state_from_result=recipe_from_result,
        ),
    },
)


# -- the scripted scenario -------------------------------------------------------------------------------

ICONS = {
    "egg": "🥚", "milk": "🥛", "butter": "🧈", "cheese": "🧀", "sugar": "🍬", "salt": "🧂", "flour": "🌾",
    "tomato": "🍅", "onion": "🧅", "garlic": "🧄", "chili": "🌶️", "pepper": "🫑", "carrot": "🥕",
    "potato": "🥔", "chicken": "🍗", "beef": "🥩", "bacon": "🥓", "fish": "🐟", "rice": "🍚", "lemon": "🍋",
    "apple": "🍎", "banana": "🍌", "mushroom": "🍄", "avocado": "🥑", "honey": "🍯", "bread": "🍞",
    "tofu": "🧊", "chocolate": "🍫", "oil": "🫒", "basil": "🌿", "herb": "🌿", "nut": "🥜",
}
NOT_VEGETARIAN = ("chicken", "beef", "pork", "bacon", "ham", "fish", "salmon", "tuna", "shrimp", "lamb")
NOT_VEGAN = (*NOT_VEGETARIAN, "egg", "milk", "butter", "cheese", "cream", "honey", "yogurt")
PREFERENCE_WORDS = {
    "vegan": "Vegan", "vegetarian": "Vegetarian", "spicy": "Spicy", "protein": "High Protein",
    "low carb": "Low Carb", "low-carb": "Low Carb", "budget": "Budget-Friendly", "cheap": "Budget-Friendly",
    "one pot": "One-Pot Meal", "one-pot": "One-Pot Meal",
}
# "eggs, milk and honey"; a clause that starts with a verb ("... and make it quick") is not an item
_CLAUSE = r" and (?:make|set|keep|turn|remove|drop|use|cook|bake|add|change|give|put|serve)\b"
_ITEMS = r"([a-z][a-z ,-]*?)(?=\.|!|\?|;| to | from | in | please|" + _CLAUSE + "|$)"
_ADD = re.compile(r"\badd(?:ing)?\s+" + _ITEMS)
_REMOVE = re.compile(r"\b(?:remove|without|drop|no)\s+" + _ITEMS)
_TITLE = r"([a-z][a-z '-]*?)(?=,|\.|!|\?| with | for | that | and | in | to | please|$)"
_TITLE_PATTERNS = (re.compile(r"\brecipe (?:for|of)\s+(?:an?\s+|some\s+)?" + _TITLE),
                   re.compile(r"\b(?:make|cook|bake)\s+(?:me\s+)?(?:an?\s+|some\s+)?" + _TITLE))
_NOT_A_DISH = re.compile(r"^(?:it|this|that|them|the recipe|the dish|something)\b")
_ARTICLE = re.compile(r"^(?:the|a|an|some|more)\s+")


def _items(listed: str) -> list[str]:
    """``"eggs, milk and the honey"`` -> ``["eggs", "milk", "honey"]``."""
    parts = re.split(r",|\band\b|\bor\b", listed)
    return [_ARTICLE.sub("", part.strip()) for part in parts if part.strip()]


def state_and_request(prompt: str) -> tuple[dict[str, Any], str]:
    """Split a prompt built by :func:`recipe_prompt` into the recipe and the user's words."""
    start = prompt.find(STATE_HEADER)
    if start < 0:
        return copy.deepcopy(INITIAL_RECIPE), prompt.strip()
    try:
        recipe, end = json.JSONDecoder().raw_decode(prompt, prompt.index("{", start))
    except ValueError:
        return copy.deepcopy(INITIAL_RECIPE), prompt.strip()
    rest = prompt[end:]
    request_at = rest.find(REQUEST_HEADER)
    request = rest[request_at + len(REQUEST_HEADER):] if request_at >= 0 else rest
    return normalize_recipe(recipe), request.split("\n\n", 1)[0].strip()


def _icon(name: str) -> str:
    lowered = name.lower()
    return next((icon for word, icon in ICONS.items() if word in lowered), "🥄")


def _drop(recipe: dict[str, Any], words: tuple[str, ...]) -> list[str]:
    kept: list[dict[str, str]] = []
    dropped: list[dict[str, str]] = []
    for ingredient in recipe["ingredients"]:
        (dropped if any(w in ingredient["name"].lower() for w in words) else kept).append(ingredient)
    recipe["ingredients"] = kept
    return [d["name"] for d in dropped]


def edit_recipe(recipe: dict[str, Any], request: str) -> tuple[dict[str, Any], list[str]]:
    """The recipe changed as ``request`` asks, and a list of the changes (for the confirmation): none when the
    request asks for none (a question about the recipe, something else entirely)."""
    recipe, lowered, changes = copy.deepcopy(recipe), request.lower(), []
    for pattern in _TITLE_PATTERNS:
        dish = pattern.search(lowered)
        if dish and dish.group(1).strip() and not _NOT_A_DISH.match(dish.group(1)):
            recipe["title"] = re.sub(r"\s+recipe$", "", dish.group(1).strip()).title()
            changes.append(f"titled it {recipe['title']}")
            break
    for word, preference in PREFERENCE_WORDS.items():
        if word in lowered and preference not in recipe["special_preferences"]:
            recipe["special_preferences"].append(preference)
            changes.append(f"made it {preference.lower()}")
    if "Vegan" in recipe["special_preferences"] or "Vegetarian" in recipe["special_preferences"]:
        excluded = NOT_VEGAN if "Vegan" in recipe["special_preferences"] else NOT_VEGETARIAN
        changes += [f"removed {name}" for name in _drop(recipe, excluded)]
    has_chili = any("chili" in i["name"].lower() for i in recipe["ingredients"])
    if "Spicy" in recipe["special_preferences"] and not has_chili:
        recipe["ingredients"].append({"icon": "🌶️", "name": "Chili Flakes", "amount": "1 tsp"})
        changes.append("added chili flakes")
    level = ("Beginner" if re.search(r"\b(?:easy|easier|simple|simpler|beginner)\b", lowered) else
             "Advanced" if re.search(r"\b(?:advanced|challenging|harder)\b", lowered) else None)
    if level and _QUESTION.match(lowered) is None:
        recipe["skill_level"] = level
        changes.append(f"set the skill level to {level.lower()}")
    minutes = re.search(r"(\d+)\s*(?:min|minute)", lowered)
    if (minutes or re.search(r"\b(?:quick|quicker|fast|faster)\b", lowered)) and _QUESTION.match(lowered) is None:
        wanted = int(minutes.group(1)) if minutes else 15
        recipe["cooking_time"] = next((t for t in COOKING_TIMES[:-1] if wanted <= int(t.split()[0])), "60+ min")
        changes.append(f"set the cooking time to {recipe['cooking_time']}")
    for match in _REMOVE.finditer(lowered):
        for item in _items(match.group(1)):
            changes += [f"removed {name}" for name in _drop(recipe, (item.rstrip("s"),))]
    for match in _ADD.finditer(lowered):
        for item in _items(match.group(1)):
            name = item.title()
            if any(i["name"].lower() == item for i in recipe["ingredients"]):
                continue
            recipe["ingredients"].append({"icon": _icon(name), "name": name, "amount": "to taste"})
            recipe["instructions"].append(f"Add the {item} and mix well.")
            changes.append(f"added {item}")
    if changes and len(recipe["instructions"]) < 3:
        for step in ("Combine the ingredients in a large bowl.", "Cook until golden and cooked through.",
                     "Serve warm."):
            if step not in recipe["instructions"]:
                recipe["instructions"].append(step)
        changes.append("filled in the missing steps")
    return recipe, changes


def listed(phrases: list[str]) -> str:
    """``["a", "b", "c"]`` -> ``"a, b and c"``."""
    return phrases[0] if len(phrases) == 1 else f"{', '.join(phrases[:-1])} and {phrases[-1]}"


def scenario(messages: Messages) -> Turn:
    """Decide the scripted model's next turn from the conversation (see the module docstring)."""
    outcomes = [o for o in tool_outcomes(messages) if o.name == "generate_recipe"]
    if outcomes:
        recipe = outcomes[-1].data if isinstance(outcomes[-1].data, Mapping) else {}
        ingredients, steps = len(recipe.get("ingredients") or []), len(recipe.get("instructions") or [])
        return [Text(f"I've updated \"{recipe.get('title', 'your recipe')}\": {ingredients} ingredients and "
                     f"{steps} steps. Tell me what to change next.")]
    recipe, request = state_and_request(user_text(messages))
    updated, changes = edit_recipe(recipe, request)
    if not changes:
        return [Text(about(recipe, request.lower()))]
    return [Text(f"Sure: I {listed(changes)}."), call("generate_recipe", {"recipe": updated})]


_QUESTION = re.compile(r"^\s*(?:why|what|how|who|when|where|which|is|are|does|do|can i|should)\b")


def about(recipe: Mapping[str, Any], request: str) -> str:
    """An answer about the recipe when the request changes nothing: how long, how hard, what goes in it; else
    what the user can ask for."""
    title = recipe.get("title") or "this recipe"
    if re.search(r"\b(?:how long|time|minutes?)\b", request):
        return f"{title} takes about {recipe.get('cooking_time')} to cook."
    if re.search(r"\b(?:how hard|difficult|difficulty|skill|level)\b", request):
        return f"{title} is a {str(recipe.get('skill_level', '')).lower()} recipe."
    if re.search(r"\b(?:ingredients?|what goes|what's in|what is in|need)\b", request):
        names = [str(i.get("name")) for i in recipe.get("ingredients") or [] if isinstance(i, Mapping)]
        return f"{title} needs {listed(names)}." if names else f"{title} has no ingredients yet: add some."
    return (f"I edit the recipe beside this chat ({title}): ask me to add or remove an ingredient, make it vegan "
            "or spicy, quicker or easier, or start a recipe for another dish.")


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model."""
    strands_agent = Agent(
        model=model(scenario, env),
        tools=[generate_recipe],
        system_prompt=SYSTEM_PROMPT,
        callback_handler=None,
    )
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION, config=CONFIG)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
