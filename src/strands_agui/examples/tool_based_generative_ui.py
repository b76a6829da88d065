"""Tool-based generative UI: the model answers with a frontend tool the page draws (the Dojo's haiku generator).

The page declares ``generate_haiku`` in ``RunAgentInput.tools`` (the Dojo page's ``useFrontendTool``) and draws
a haiku card from its arguments while they stream; the agent has no backend tool. The run halts on the call
(TOOL_CALL_START/ARGS/END, then RUN_FINISHED with the call pending); the page's ``followUp: false`` means it
sends no follow-up run, but one with the tool's result is answered.

Scripted scenario (no ``STRANDS_AGUI_MODEL``):

- a haiku, poem or verse about a subject -> ``generate_haiku`` with three Japanese lines, their English
  translation, an image from the page's list and a CSS gradient, all chosen by the subject (ocean, spring,
  nature, mountains, city, night, autumn, winter; anything else gets a haiku about the words themselves)
- the conversation ends with the page's result -> "Here is your haiku about <subject>."
- anything else -> an offer to write one

Run: ``python -m strands_agui.examples.tool_based_generative_ui`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ag_ui.core import Tool
from strands import Agent
from strands.types.content import Messages

from strands_agui import StrandsAgent, Text, Turn, create_strands_app
from strands_agui.examples._common import call, model, serve, tool_outcomes, user_text

NAME = "tool_based_generative_ui"
DESCRIPTION = "A haiku generator whose answer is a frontend tool (generate_haiku) the page draws as a card."
PROMPTS = (  # the Dojo page's suggestions
    "Write me a haiku about nature.",
    "Create a haiku about the ocean.",
    "Generate a haiku about spring.",
)

IMAGE_NAMES = (  # the images the Dojo page ships
    "Osaka_Castle_Turret_Stone_Wall_Pine_Trees_Daytime.jpg",
    "Tokyo_Skyline_Night_Tokyo_Tower_Mount_Fuji_View.jpg",
    "Itsukushima_Shrine_Miyajima_Floating_Torii_Gate_Sunset_Long_Exposure.jpg",
    "Takachiho_Gorge_Waterfall_River_Lush_Greenery_Japan.jpg",
    "Bonsai_Tree_Potted_Japanese_Art_Green_Foliage.jpeg",
    "Shirakawa-go_Gassho-zukuri_Thatched_Roof_Village_Aerial_View.jpg",
    "Ginkaku-ji_Silver_Pavilion_Kyoto_Japanese_Garden_Pond_Reflection.jpg",
    "Senso-ji_Temple_Asakusa_Cherry_Blossoms_Kimono_Umbrella.jpg",
    "Cherry_Blossoms_Sakura_Night_View_City_Lights_Japan.jpg",
    "Mount_Fuji_Lake_Reflection_Cherry_Blossoms_Sakura_Spring.jpg",
)

GENERATE_HAIKU = Tool(
    name="generate_haiku",
    description="Show a haiku card on the page: three Japanese lines, their English translation, an image and "
    "a background gradient.",
    parameters={
        "type": "object",
        "properties": {
            "japanese": {"type": "array", "items": {"type": "string"}, "description": "3 lines of haiku in Japanese"},
            "english": {"type": "array", "items": {"type": "string"},
                        "description": "3 lines of haiku translated to English"},
            "image_name": {"type": "string", "description": f"One relevant image name from: {', '.join(IMAGE_NAMES)}"},
            "gradient": {"type": "string", "description": "CSS Gradient color for the background"},
        },
        "required": ["japanese", "english", "image_name", "gradient"],
    },
)
FRONTEND_TOOLS = [GENERATE_HAIKU]

SYSTEM_PROMPT = """You are a creative haiku generator.

When the user asks for a haiku, ALWAYS call the `generate_haiku` tool with:
- 3 lines of haiku in Japanese
- 3 lines of haiku translated to English
- One relevant image_name from the provided list
- A CSS gradient for the card background

Do not respond with plain text, always use the tool."""

# subject -> (words that pick it, japanese, english, image, gradient); the first whose words match wins
HAIKUS: tuple[tuple[str, tuple[str, ...], tuple[str, str, str], tuple[str, str, str], str, str], ...] = (
    ("the ocean", ("ocean", "sea", "wave", "waves", "beach", "tide"),
     ("青い海", "波が砂を撫で", "潮の歌"),
     ("Blue endless ocean", "waves stroke the sand and retreat", "the tide's quiet song"),
     IMAGE_NAMES[2], "linear-gradient(135deg, #0f3d6e 0%, #4fa3d1 100%)"),
    ("spring", ("spring", "blossom", "blossoms", "sakura", "cherry"),
     ("桜咲く", "春の風に舞う", "花吹雪"),
     ("Cherry trees in bloom", "dancing on the breath of spring", "a storm of petals"),
     IMAGE_NAMES[9], "linear-gradient(135deg, #ffd1dc 0%, #ffe9a8 100%)"),
    ("mountains", ("mountain", "mountains", "fuji", "peak", "hill", "hills"),
     ("富士の山", "雲の上に立つ", "静けさよ"),
     ("Mount Fuji rises", "standing high above the clouds", "such stillness up there"),
     IMAGE_NAMES[1], "linear-gradient(135deg, #3a506b 0%, #c9d6df 100%)"),
    ("the city", ("city", "town", "street", "tokyo", "lights", "urban"),
     ("街の灯", "夜を彩る", "人の波"),
     ("Lights of the city", "painting colour on the night", "a tide of people"),
     IMAGE_NAMES[8], "linear-gradient(135deg, #1b1b3a 0%, #ff6f91 100%)"),
    ("the night", ("night", "moon", "stars", "star", "dark"),
     ("月明かり", "静かな池に", "星の影"),
     ("Soft light of the moon", "on the surface of the pond", "shadows of the stars"),
     IMAGE_NAMES[6], "linear-gradient(135deg, #0b132b 0%, #5bc0be 100%)"),
    ("autumn", ("autumn", "fall", "leaves", "maple"),
     ("紅葉散る", "古い寺の庭", "秋の声"),
     ("Red maple leaves fall", "in an old temple garden", "the voice of autumn"),
     IMAGE_NAMES[0], "linear-gradient(135deg, #b33f00 0%, #ffb347 100%)"),
    ("winter", ("winter", "snow", "ice", "cold", "frost"),
     ("雪の村", "茅葺き屋根に", "白い息"),
     ("A village of snow", "on the roofs of thatch and straw", "white breath in the air"),
     IMAGE_NAMES[5], "linear-gradient(135deg, #e0eafc 0%, #cfdef3 100%)"),
    ("nature", ("nature", "forest", "tree", "trees", "river", "waterfall", "green", "garden"),
     ("緑の森", "滝の音響く", "命の歌"),
     ("A forest of green", "the sound of the waterfall", "a song of all life"),
     IMAGE_NAMES[3], "linear-gradient(135deg, #134e5e 0%, #71b280 100%)"),
)
_WANTS_HAIKU = re.compile(r"\b(haiku|haikus|poem|verse)\b", re.IGNORECASE)
_ABOUT = re.compile(r"\babout\s+(?:the\s+|a\s+|an\s+)?([^.?!,]+)", re.IGNORECASE)


def haiku_for(words: str) -> tuple[str, dict[str, Any]]:
    """``(subject, generate_haiku arguments)`` for the user's words."""
    tokens = set(re.findall(r"[a-z]+", words.lower()))
    for subject, keys, japanese, english, image, gradient in HAIKUS:
        if tokens & set(keys):
            return subject, {"japanese": list(japanese), "english": list(english), "image_name": image,
                             "gradient": gradient}
    about = _ABOUT.search(words)
    subject = about.group(1).strip() if about else "this moment"
    return subject, {"japanese": ["言葉待つ", "白い紙の上", "一つの句"],
                     "english": [f"Thinking of {subject}", "on a page of empty white", "a single verse waits"],
                     "image_name": IMAGE_NAMES[4], "gradient": "linear-gradient(135deg, #f6f1e9 0%, #d8c3a5 100%)"}


def scenario(messages: Messages) -> Turn:
    """Decide the scripted model's next turn from the conversation (see the module docstring)."""
    if [o for o in tool_outcomes(messages) if o.name == GENERATE_HAIKU.name]:
        subject, _ = haiku_for(user_text(messages))
        return [Text(f"Here is your haiku about {subject}. Want another one?")]
    words = user_text(messages)
    if _WANTS_HAIKU.search(words):
        subject, haiku = haiku_for(words)
        return [call(GENERATE_HAIKU.name, haiku)]
    return [Text("I write haiku: ask me for one about the ocean, spring, the city at night or anything you like.")]


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model."""
    strands_agent = Agent(model=model(scenario, env), tools=[],
                          system_prompt=SYSTEM_PROMPT, callback_handler=None)
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
