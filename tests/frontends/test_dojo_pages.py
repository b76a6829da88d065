"""The Dojo's Strands features (issue 26, item 4) through CopilotKit 1.74's v2 hooks in a browser: each route
behind the hooks the Dojo's own v2 page registers for it (``src/dojo.jsx``: ``useFrontendTool`` with a render
and ``followUp: false``, ``useInterrupt`` with a time picker, ``useHumanInTheLoop`` confirming a document read
with ``useAgent``, ``<CopilotChat attachments>``; the A2UI pages only the runtime's ``a2ui`` middleware). Each test
asserts what the page ends up holding."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.frontends.conftest import Page

pytestmark = pytest.mark.slow


def chat_of(page: Any) -> Any:
    return page.locator('[data-testid="page"]')


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_reasoning_streams_then_the_answer(copilotkit: Page) -> None:
    page = copilotkit.open("v2", "agentic_chat_reasoning")
    copilotkit.send("What is 17 * 23?")
    expect(chat_of(page)).to_contain_text("17 × 23 = 391")  # the answer's markdown, rendered
    copilotkit.send("make the background pink")
    expect(chat_of(page)).to_have_attribute("data-background", "pink")  # the page's frontend tool ran
    expect(chat_of(page)).to_contain_text("Done: the background is now pink.")


def test_the_haiku_is_drawn_from_the_frontend_call(copilotkit: Page) -> None:
    page = copilotkit.open("v2", "tool_based_generative_ui")
    copilotkit.send("Create a haiku about the ocean.")
    card = page.locator('[data-testid="carousel-item-0"] [data-testid="haiku-card"]')  # the handler's state
    expect(card.locator('[data-testid="haiku-english-line"]')).to_have_text(
        ["Blue endless ocean", "waves stroke the sand and retreat", "the tide's quiet song"])
    expect(card.locator('[data-testid="haiku-japanese-line"]')).to_have_count(3)
    expect(page.locator('[data-testid="chat-haiku"] [data-testid="haiku-card"]')).to_have_count(1)  # its render
    assert "linear-gradient" in (card.get_attribute("style") or "")


@pytest.mark.parametrize("choice", ["slot", "cancel"])
def test_the_time_picker_resumes_the_paused_tool(copilotkit: Page, choice: str) -> None:
    page = copilotkit.open("v2", "interrupt")
    copilotkit.send("Book an intro call with the sales team to discuss pricing.")
    picker = page.locator('[data-testid="interrupt-picker"]')
    expect(picker.locator('[data-testid="interrupt-topic"]')).to_have_text(
        "Intro call with Sales team to discuss pricing")
    expect(picker.locator('[data-testid="interrupt-attendee"]')).to_have_text("with Sales team")
    if choice == "slot":
        slot = picker.locator('[data-testid="interrupt-slot"]').first
        label = slot.get_attribute("data-label")
        slot.click()
        expect(chat_of(page)).to_contain_text(f'"Intro call with Sales team to discuss pricing" is booked for {label}.')
    else:
        picker.locator('[data-testid="interrupt-cancel"]').click()
        expect(chat_of(page)).to_contain_text("No problem, I cancelled it: nothing was scheduled.")
    expect(picker).to_have_count(0)


@pytest.mark.parametrize("button", ["confirm", "reject"])
def test_the_predicted_document_is_confirmed_or_rejected(copilotkit: Page, button: str) -> None:
    page = copilotkit.open("v2", "predictive_state_updates")
    copilotkit.send("Please write a story about a mermaid named Luna.")
    document = page.locator('[data-testid="document"]')
    expect(document).to_contain_text("# The Tale of Luna")  # in the shared state, from the streamed call
    modal = page.locator('[data-testid="confirm-changes-modal"]')
    modal.locator(f'[data-testid="{button}-button"]').click()
    if button == "confirm":
        expect(chat_of(page)).to_contain_text("Great, the changes are in the document.")
        expect(modal).to_have_count(0)  # the Dojo's render draws the card only while the call executes
        expect(document).to_contain_text("# The Tale of Luna")
        copilotkit.send("Please add a character named Courage.")  # the next edit starts from the page's document
        expect(document).to_contain_text("Then came Courage")
        expect(document).to_contain_text("# The Tale of Luna")
    else:
        expect(chat_of(page)).to_contain_text("Understood: I left the document as it was.")
        expect(document).to_have_text("")  # the editor went back to the last confirmed text


def test_an_attached_image_is_described(copilotkit: Page) -> None:
    page = copilotkit.open("v2", "agentic_chat_multimodal")
    page.locator('input[type="file"]').set_input_files(
        {"name": "red.png", "mimeType": "image/png", "buffer": png(64, 32, (255, 0, 0))})
    copilotkit.send("Describe what you see in the image I upload.")
    expect(chat_of(page)).to_contain_text(
        "I see a 64×32 PNG image in landscape, a single flat red (#ff0000) with nothing else in it.")


@pytest.mark.parametrize(("prompt", "card_text", "answer"), [
    ("Find flights from SFO to JFK for next Tuesday.", "SFO → JFK",
     "Here are 3 flights from SFO to JFK. Would you like me to book one?"),
    ("Find hotels in downtown Manhattan for next weekend.", "Downtown Manhattan",
     "Here are 3 hotels in Downtown Manhattan. Shall I reserve a room at one of them?"),
])
def test_fixed_schema_results_are_painted(copilotkit: Page, prompt: str, card_text: str, answer: str) -> None:
    page = copilotkit.open("v2", "a2ui_fixed_schema")
    copilotkit.send(prompt)
    expect(chat_of(page)).to_contain_text(answer)
    cards = page.get_by_text(card_text, exact=True) if "→" not in card_text else page.get_by_text(card_text)
    expect(cards).to_have_count(3)  # one card per result, the fixed layout's texts


def test_a2ui_recovery_paints_the_redesigned_surface(copilotkit: Page) -> None:
    page = copilotkit.open("v2", "a2ui_recovery")
    copilotkit.send("Compare 3 luxury hotels with ratings and prices.")
    expect(chat_of(page)).to_contain_text("Here it is: 3 luxury hotels, side by side above.")
    for text in ("3 luxury hotels", "The Aurelia", "Grand Meridian", "Maison Verte"):
        expect(page.get_by_text(text, exact=True)).to_have_count(1)


def test_a2ui_recovery_fails_cleanly(copilotkit: Page) -> None:
    page = copilotkit.open("v2", "a2ui_recovery")
    copilotkit.send("Compare 3 broken hotels with ratings and prices.")
    expect(chat_of(page)).to_contain_text("Sorry, I couldn't build a valid view after 3 attempts")
    expect(page.get_by_text("The Aurelia", exact=True)).to_have_count(0)
