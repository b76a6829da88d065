"""Agentic chat with images: the user attaches a picture and the model describes it (the Dojo's
``agentic_chat_multimodal``).

An AG-UI user message with an image part (``{"type": "image", "source": {"type": "data", "mimeType":
"image/png", "value": <base64>}}``, what CopilotKit's ``<CopilotChat attachments>`` sends) reaches the Strands
model as a Converse ``image`` block with its bytes (``runtime/building/conversation.py``). The page (the Dojo's) also
declares ``change_background``, as in ``agentic_chat``.

Scripted scenario (no ``STRANDS_AGUI_MODEL``): the scripted model cannot see, so it *measures*: for each image
in the newest user message, its format and size (PNG, JPEG, GIF and WebP headers), and, for a PNG, its average
colour (named after the nearest CSS colour) and whether it is a single flat colour. Without an image it asks
for one; a background request calls ``change_background``.

Run: ``python -m strands_agui.examples.agentic_chat_multimodal`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from strands import Agent
from strands.types.content import Messages

from strands_agui import StrandsAgent, Text, Turn, create_strands_app
from strands_agui.examples._common import call, model, serve, tool_outcomes, user_text
from strands_agui.examples.agentic_chat import CHANGE_BACKGROUND, DEFAULT_COLOUR, colour_in, wants_background

NAME = "agentic_chat_multimodal"
DESCRIPTION = "Chat that takes image attachments and describes them."
PROMPTS = (  # the Dojo page's suggestions (attach an image with the message)
    "Describe what you see in the image I upload.",
    "What objects can you identify in this photo?",
)
FRONTEND_TOOLS = [CHANGE_BACKGROUND]

SYSTEM_PROMPT = """
You are a helpful assistant that can analyze images and documents.
When the user shares an image, describe what you see in detail.
When the user shares a document, summarize its contents.
Always be descriptive and specific about visual content.
"""

NAMED_COLOURS = {  # a few CSS colours to name an average colour after
    "black": (0, 0, 0), "white": (255, 255, 255), "gray": (128, 128, 128), "silver": (192, 192, 192),
    "red": (255, 0, 0), "maroon": (128, 0, 0), "orange": (255, 165, 0), "gold": (255, 215, 0),
    "yellow": (255, 255, 0), "olive": (128, 128, 0), "lime": (0, 255, 0), "green": (0, 128, 0),
    "teal": (0, 128, 128), "cyan": (0, 255, 255), "skyblue": (135, 206, 235), "blue": (0, 0, 255),
    "navy": (0, 0, 128), "purple": (128, 0, 128), "magenta": (255, 0, 255), "pink": (255, 192, 203),
    "brown": (139, 69, 19), "beige": (245, 245, 220),
}


@dataclass(frozen=True)
class ImageFacts:
    """What the scripted model can tell of an image from its bytes."""

    format: str
    width: int | None = None
    height: int | None = None
    average: tuple[int, int, int] | None = None  # PNG only
    flat: bool | None = None  # PNG only: every pixel the same colour


def nearest_colour(rgb: tuple[int, int, int]) -> str:
    return min(NAMED_COLOURS, key=lambda name: sum((a - b) ** 2 for a, b in zip(NAMED_COLOURS[name], rgb, strict=True)))


def _png_pixels(data: bytes) -> tuple[int, int, list[tuple[int, int, int]]] | None:
    """Width, height and RGB pixels of an 8-bit RGB/RGBA/grey PNG (non-interlaced), else None."""
    pos, chunks, header = 8, b"", None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks += body
        pos += 12 + length
    if header is None:
        return None
    width, height, depth, colour_type, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour_type)
    if depth != 8 or channels is None or interlace or width * height > 4_000_000:
        return None
    raw, stride = zlib.decompress(chunks), width * channels
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(line)
        previous = line
    pixels = [(row[x * channels], row[x * channels + (1 if channels >= 3 else 0)],
               row[x * channels + (2 if channels >= 3 else 0)]) for row in rows for x in range(width)]
    return width, height, pixels


def image_facts(data: bytes, declared: str = "") -> ImageFacts:
    """The format and size of an image (and a PNG's average colour) from its bytes."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        try:
            decoded = _png_pixels(data)
        except (zlib.error, struct.error, IndexError):
            decoded = None
        if decoded is None:
            return ImageFacts("PNG", width, height)
        _, _, pixels = decoded
        average = tuple(sum(p[c] for p in pixels) // len(pixels) for c in range(3))
        return ImageFacts("PNG", width, height, average, len(set(pixels)) == 1)  # type: ignore[arg-type]
    if data.startswith(b"GIF8") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return ImageFacts("GIF", width, height)
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return ImageFacts("WebP")
    if data.startswith(b"\xff\xd8"):
        pos = 2
        while pos + 9 < len(data):
            marker, length = data[pos + 1], struct.unpack(">H", data[pos + 2:pos + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2):
                height, width = struct.unpack(">HH", data[pos + 5:pos + 9])
                return ImageFacts("JPEG", width, height)
            pos += 2 + length
        return ImageFacts("JPEG")
    return ImageFacts(declared.upper() or "unknown")


def newest_images(messages: Messages) -> list[ImageFacts]:
    """The images of the newest user message that has text or images."""
    for message in reversed(messages):
        blocks: Sequence[Mapping[str, Any]] = message.get("content") or []  # type: ignore[assignment]
        if message.get("role") != "user" or not any("text" in b or "image" in b for b in blocks):
            continue
        return [image_facts(bytes(b["image"]["source"].get("bytes") or b""), str(b["image"].get("format", "")))
                for b in blocks if isinstance(b.get("image"), Mapping)]
    return []


def describe(facts: ImageFacts) -> str:
    """One image in a sentence or two."""
    size = f"{facts.width}×{facts.height} " if facts.width and facts.height else ""
    shape = ""
    if facts.width and facts.height:
        shape = (" in landscape" if facts.width > facts.height else " in portrait" if facts.height > facts.width
                 else ", square")
    described = f"{size}{facts.format} image{shape}"
    text = ("an " if described[:1] in "8AEIOU" or described.startswith(("11", "18")) else "a ") + described
    if facts.average is not None:
        hex_code = "#{:02x}{:02x}{:02x}".format(*facts.average)
        name = nearest_colour(facts.average)
        text += (f", a single flat {name} ({hex_code}) with nothing else in it" if facts.flat
                 else f", mostly {name} overall (average colour {hex_code})")
    return text


def scenario(messages: Messages) -> Turn:
    """Decide the scripted model's next turn from the conversation (see the module docstring)."""
    outcomes = [o for o in tool_outcomes(messages) if o.name == CHANGE_BACKGROUND.name]
    if outcomes:
        return [Text(f"Done: the background is now {outcomes[-1].input.get('background', 'changed')}.")]
    images, words = newest_images(messages), user_text(messages)
    if images:
        parts = [describe(f) for f in images]
        intro = "I see " + ("; and ".join(parts) if len(parts) > 1 else parts[0]) + "."
        return [Text(intro + " I'm the scripted demo model, so I can only measure the picture, not recognise "
                     "objects in it; set STRANDS_AGUI_MODEL to a vision model for a real description.")]
    if wants_background(words):
        colour = colour_in(words) or DEFAULT_COLOUR
        return [Text(f"Sure, changing the background to {colour}."),
                call(CHANGE_BACKGROUND.name, {"background": colour})]
    return [Text("Attach an image to your message and ask me about it: I'll tell you what I can make out of it.")]


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model."""
    strands_agent = Agent(model=model(scenario, env), tools=[],
                          system_prompt=SYSTEM_PROMPT, callback_handler=None)
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
