"""The Dojo's Strands scenarios (``apps/dojo/e2e/tests/awsStrandsTests/*.spec.ts``), as the inputs their steps
send: the prompts the specs type, the frontend tools the pages register (CopilotKit sends them as
``RunAgentInput.tools``), the state a page starts with, a frontend tool's result, an interrupt's answer."""

from __future__ import annotations

from tests.oracles import CURRENT

from .harness import Scenario, Step


def _tool(name: str, description: str, properties: dict[str, object], required: list[str]) -> dict[str, object]:
    return {"name": name, "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required}}


CHANGE_BACKGROUND = _tool("change_background", "Change the background color of the chat.",
                          {"background": {"type": "string", "description": "CSS background"}}, ["background"])
GENERATE_TASK_STEPS = _tool(
    "generate_task_steps", "Generates a list of steps for the user to perform.",
    {"steps": {"type": "array", "items": {"type": "object", "properties": {
        "description": {"type": "string"}, "status": {"type": "string", "enum": ["enabled", "disabled"]}},
        "required": ["description", "status"]}}}, ["steps"])
WRITE_DOCUMENT = _tool("write_document", "Write a document, in markdown.",
                       {"document": {"type": "string", "description": "the whole document"}}, ["document"])
GENERATE_HAIKU = _tool(
    "generate_haiku", "Generate a haiku in Japanese and its English translation, with an image and a gradient.",
    {"japanese": {"type": "array", "items": {"type": "string"}},
     "english": {"type": "array", "items": {"type": "string"}},
     "image_name": {"type": "string"}, "gradient": {"type": "string"}},
    ["japanese", "english", "image_name", "gradient"])

INITIAL_RECIPE = {
    "title": "Make Your Recipe", "skill_level": "Intermediate", "special_preferences": [], "cooking_time": "45 min",
    "ingredients": [{"icon": "🥕", "name": "Carrots", "amount": "3 large, grated"},
                    {"icon": "🌾", "name": "All-Purpose Flour", "amount": "2 cups"}],
    "instructions": ["Preheat oven to 350°F (175°C)"], "changes": "",
}
APPROVED_STEPS = ('{"accepted": true, "steps": [{"description": "Preheat oven", "status": "enabled"}, '
                  '{"description": "Melt butter and chocolate", "status": "enabled"}, '
                  '{"description": "Fold in flour", "status": "enabled"}, '
                  '{"description": "Bake for 25 minutes", "status": "enabled"}]}')
# a 4x4 blue PNG: what the multimodal page's file input attaches, as CopilotKit sends it (an image part)
BLUE_SQUARE = ("iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGOQizoBRwzEcQD9oxQB2jyOrgAAAABJRU5ErkJggg==")
PICKED_TIME = {"chosen_time": "2026-09-12T10:00:00", "chosen_label": "Sat, Sep 12, 10:00 AM"}

SCENARIOS = (
    Scenario("agentic_chat", "agentic_chat", (Step(user="Hi, I am duaa"),), spec="agenticChatPage"),
    Scenario("agentic_chat_background", "agentic_chat",
             (Step(user="Hi change the background color to blue"), Step(tool_result="Background changed to blue")),
             tools=(CHANGE_BACKGROUND,), spec="agenticChatPage"),
    Scenario("agentic_chat_reasoning", "agentic_chat_reasoning", (Step(user="What is the best car to buy?"),),
             spec="agenticChatReasoningPage"),
    Scenario("agentic_chat_multimodal", "agentic_chat_multimodal", (Step(user=[
        {"type": "text", "text": "Tell me what do you see in this image"},
        {"type": "image", "source": {"type": "data", "value": BLUE_SQUARE, "mimeType": "image/png"}},
    ]),), spec="agenticChatMultimodalPage"),
    Scenario("backend_tool_rendering", "backend_tool_rendering",
             (Step(user="What's the weather in San Francisco?"),), spec="backendToolRenderingPage"),
    Scenario("human_in_the_loop", "human_in_the_loop", (
        Step(user="Hi"),
        Step(user="Give me a plan to make brownies, there should be only one step with eggs and one step with oven, "
                  "this is a strict requirement so adhere"),
        Step(tool_result=APPROVED_STEPS),
        Step(user="Does the planner include eggs? ⚠️ Reply with only words 'Yes' or 'No' (no explanation, no "
                  "punctuation)."),
    ), tools=(GENERATE_TASK_STEPS,), spec="humanInTheLoopPage"),
    Scenario("shared_state", "shared_state", (
        Step(user='Please give me a pasta recipe of your choosing, but one of the ingredients should be "Pasta". '
                  'Not a type of pasta, exactly the word "Pasta".'),
    ), state={"recipe": INITIAL_RECIPE}, spec="sharedStatePage"),
    Scenario("tool_based_generative_ui", "tool_based_generative_ui", (
        Step(user='Generate Haiku for "I will always win"'), Step(tool_result="Haiku generated"),
    ), tools=(GENERATE_HAIKU,), spec="toolBasedGenUIPage"),
    Scenario("interrupt", "interrupt", (
        Step(user="Book an intro call with the sales team to talk about pricing."),
        Step(resume=PICKED_TIME, generations=(CURRENT,)),  # resume is a RunAgentInput field from AG-UI 1.0 on
    ), spec="interruptPage"),
    Scenario("predictive_state_updates", "predictive_state_updates", (
        Step(user="Give me a story for a dragon called Atlantis in document"), Step(tool_result='{"accepted": true}'),
        Step(user="Change dragon name to Lola"), Step(tool_result='{"accepted": false}'),
    ), tools=(WRITE_DOCUMENT,), state={"document": ""}, spec="predictiveStateUpdatePage"),
    Scenario("agentic_generative_ui", "agentic_generative_ui", (Step(user="Hi"), Step(user="Go to Mars")),
             spec="agenticGenUI"),
    Scenario("a2ui_fixed_schema", "a2ui_fixed_schema", (
        Step(user="Find flights from SFO to JFK."), Step(user="Find hotels in downtown Manhattan."),
    ), spec="a2uiFixedSchema"),
    Scenario("multi_agent", "multi_agent", (Step(user="Tell me about the history of tea"),), spec="multiAgentPage"),
)
AGENTS = sorted({s.agent for s in SCENARIOS})
BY_NAME = {s.name: s for s in SCENARIOS}
