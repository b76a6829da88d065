"""A2UI with fixed schemas: backend tools whose results are UI surfaces of a fixed layout (the Dojo's
``a2ui_fixed_schema``).

Unlike ``a2ui_generative_ui`` (a designer subagent writes the surface), the layout here is fixed in code and
only the data changes: ``search_flights`` and ``search_hotels`` return the A2UI operations envelope
``{"a2ui_operations": [createSurface, updateComponents, updateDataModel]}`` (``ag-ui-a2ui-toolkit``'s
builders), which ``@ag-ui/a2ui-middleware`` (CopilotKit's runtime applies it) finds in the TOOL_CALL_RESULT and
paints. No subagent, no generation. The layouts use the A2UI basic catalog (``Card``, ``Column``, ``Row``,
``Text``, ``List``, ``Button``), so any A2UI renderer draws them (the Dojo's page uses its own FlightCard / HotelCard
catalog; its layouts are in the ``ag_ui_strands`` sdist, ``examples/demo/api/a2ui_fixed_schema_schemas``).

Scripted scenario (no ``STRANDS_AGUI_MODEL``):

- flights "from A to B" (airport codes or cities; "for next Tuesday", "tomorrow", "on Friday"...) -> a
  sentence, then ``search_flights`` with three flights on that route and date
- hotels "in <place>" -> a sentence, then ``search_hotels`` with three hotels there
- after the result -> a one-line summary (the cards carry the details), offering to book
- a click on a flight's **Book** (the A2UI ``book_flight`` action, arriving as ``@ag-ui/a2ui-middleware``'s
  ``log_a2ui_event`` call and result) -> "Booked flight <number> from <origin> to <destination> for <price>."
- anything else -> what it can search

Run: ``python -m strands_agui.examples.a2ui_fixed_schema`` (port from ``PORT``, default 8000).
"""

from __future__ import annotations

import datetime
import hashlib
import re
from collections.abc import Mapping
from typing import Any

from ag_ui_a2ui_toolkit import (
    A2UI_OPERATIONS_KEY,
    BASIC_CATALOG_ID,
    create_surface,
    update_components,
    update_data_model,
)
from strands import Agent, tool
from strands.types.content import Messages

from strands_agui import StrandsAgent, Text, Turn, create_strands_app
from strands_agui.examples._common import call, model, serve, snippet, tool_outcomes, user_text

NAME = "a2ui_fixed_schema"
DESCRIPTION = "Flight and hotel search whose results are A2UI surfaces of a fixed layout (backend tools)."
PROMPTS = (  # the Dojo page's suggestions
    "Find flights from SFO to JFK for next Tuesday.",
    "Find hotels in downtown Manhattan for next weekend.",
)
FRONTEND_TOOLS: list[Any] = []
BOOK_ACTION = "book_flight"  # a flight card's Book button (the Dojo's FlightCard action)
ACTION_TOOL = "log_a2ui_event"  # how a click reaches the agent: @ag-ui/a2ui-middleware's synthetic call
FLIGHT_SURFACE_ID = "flight-search-results"
HOTEL_SURFACE_ID = "hotel-search-results"


def _text(component_id: str, path: str, variant: str | None = None) -> dict[str, Any]:
    component = {"id": component_id, "component": "Text", "text": {"path": path}}
    return {**component, "variant": variant} if variant else component


FLIGHT_SCHEMA: list[dict[str, Any]] = [
    {"id": "root", "component": "List", "children": {"componentId": "flight-card", "path": "/flights"}},
    {"id": "flight-card", "component": "Card", "child": "flight-body"},
    {"id": "flight-body", "component": "Column",
     "children": ["flight-title", "flight-route", "flight-times", "flight-facts", "flight-book"]},
    _text("flight-title", "title", "h3"),
    _text("flight-route", "route"),
    _text("flight-times", "times"),
    _text("flight-facts", "facts"),
    {"id": "flight-book", "component": "Button", "child": "flight-book-label", "variant": "primary",
     "action": {"event": {"name": BOOK_ACTION, "context": {  # upstream's flight_schema.json action, as it is
         "flightNumber": {"path": "flightNumber"}, "origin": {"path": "origin"},
         "destination": {"path": "destination"}, "price": {"path": "price"}}}}},
    {"id": "flight-book-label", "component": "Text", "text": "Book"},
]
"""A card per flight: airline and number, route and date, times, then duration, status and price, and a Book
button whose action (``book_flight``, the flight's number, route and price) a client sends back."""

HOTEL_SCHEMA: list[dict[str, Any]] = [
    {"id": "root", "component": "List", "children": {"componentId": "hotel-card", "path": "/hotels"}},
    {"id": "hotel-card", "component": "Card", "child": "hotel-body"},
    {"id": "hotel-body", "component": "Column", "children": ["hotel-name", "hotel-location", "hotel-facts"]},
    _text("hotel-name", "name", "h3"),
    _text("hotel-location", "location"),
    _text("hotel-facts", "facts"),
]
"""A card per hotel: its name, where it is, then its stars and nightly price."""

SYSTEM_PROMPT = """You are a helpful travel assistant that can search for flights and hotels.

When the user asks about flights, use the search_flights tool.
When the user asks about hotels, use the search_hotels tool.
IMPORTANT: After calling a tool, do NOT repeat or summarize the data in your text response. The tool renders
a rich UI automatically. Just say something brief like "Here are your results" or ask if they'd like to book.

For flights, each needs: id, airline, flightNumber, origin, destination, date, departureTime, arrivalTime,
duration, status, and price.

For hotels, each needs: id, name, location, rating (float 0-5), and price (per night).

Generate 3-5 realistic results."""


def envelope(surface_id: str, schema: list[dict[str, Any]], data: dict[str, Any]) -> dict[str, Any]:
    """The A2UI operations envelope of a fixed-layout surface holding ``data``."""
    return {A2UI_OPERATIONS_KEY: [create_surface(surface_id, catalog_id=BASIC_CATALOG_ID),
                                  update_components(surface_id, schema), update_data_model(surface_id, data)]}


def _flight_view(flight: Mapping[str, Any]) -> dict[str, Any]:
    return {**flight,
            "title": f"{flight.get('airline', '')} {flight.get('flightNumber', '')}".strip(),
            "route": f"{flight.get('origin', '')} → {flight.get('destination', '')} · {flight.get('date', '')}",
            "times": f"{flight.get('departureTime', '')} – {flight.get('arrivalTime', '')}",
            "facts": f"{flight.get('duration', '')} · {flight.get('status', '')} · {flight.get('price', '')}"}


def _hotel_view(hotel: Mapping[str, Any]) -> dict[str, Any]:
    rating = hotel.get("rating")
    stars = f"★ {rating}" if isinstance(rating, (int, float)) else ""
    return {**hotel, "facts": f"{stars} · {hotel.get('price', '')} per night".strip(" ·")}


@tool
def search_flights(flights: list[dict[str, Any]]) -> dict[str, Any]:
    """Search for flights and display the results as rich cards.

    Args:
        flights: A list of flight objects. Each flight must have: id, airline (e.g. "United Airlines"),
            flightNumber, origin, destination, date (short readable format like "Tue, Mar 18"),
            departureTime, arrivalTime, duration (e.g. "4h 25m"), status (e.g. "On Time" or "Delayed"),
            and price (e.g. "$289").
    """
    return envelope(FLIGHT_SURFACE_ID, FLIGHT_SCHEMA, {"flights": [_flight_view(f) for f in flights]})


@tool
def search_hotels(hotels: list[dict[str, Any]]) -> dict[str, Any]:
    """Search for hotels and display the results as rich cards with star ratings.

    Args:
        hotels: A list of hotel objects. Each hotel must have: id, name (e.g. "The Plaza"), location (e.g.
            "Midtown Manhattan, NYC"), rating (float 0-5, e.g. 4.5), and price (per night, e.g. "$350").
    """
    return envelope(HOTEL_SURFACE_ID, HOTEL_SCHEMA, {"hotels": [_hotel_view(h) for h in hotels]})


_ROUTE = re.compile(r"\bfrom\s+([A-Za-z][A-Za-z .'-]*?)\s+to\s+([A-Za-z][A-Za-z .'-]*?)(?=\s+(?:for|on|next|this|"
                    r"tomorrow|today|in|at|leaving|departing)\b|[.,?!]|$)", re.IGNORECASE)
_PLACE = re.compile(r"\b(?:in|near|around)\s+((?:downtown\s+|central\s+|midtown\s+)?[A-Za-z][A-Za-z .'-]*?)"
                    r"(?=\s+(?:for|on|next|this|from|tomorrow|tonight|with)\b|[.,?!]|$)", re.IGNORECASE)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
AIRLINES = (("United Airlines", "UA"), ("Delta Air Lines", "DL"), ("JetBlue", "B6"), ("Alaska Airlines", "AS"))
HOTEL_NAMES = ("The Harbor House", "Hotel Meridian", "The Linden", "Park & Pine Suites")


def _place(name: str) -> str:
    name = name.strip()
    return name.upper() if len(name) == 3 and name.isalpha() else name.title()


def travel_date(words: str, today: datetime.date | None = None) -> datetime.date:
    """The day the words name ("tomorrow", "next Tuesday", "on Friday"), else a week from today."""
    today = today or datetime.date.today()
    lowered = words.lower()
    if "tomorrow" in lowered:
        return today + datetime.timedelta(days=1)
    for index, day in enumerate(_WEEKDAYS):
        if day in lowered:
            ahead = (index - today.weekday()) % 7 or 7
            return today + datetime.timedelta(days=ahead + (7 if f"next {day}" in lowered and ahead < 3 else 0))
    if "weekend" in lowered:
        return today + datetime.timedelta(days=(5 - today.weekday()) % 7 or 7)
    return today + datetime.timedelta(days=7)


def _seed(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).lower().encode()).hexdigest()[:8], 16)


def flights_for(origin: str, destination: str, day: datetime.date) -> list[dict[str, Any]]:
    """Three plausible flights on the route, the same for the same route and day."""
    seed, label = _seed(origin, destination), day.strftime("%a, %b ") + str(day.day)
    minutes = 150 + seed % 300
    flights = []
    for i, (airline, code) in enumerate(AIRLINES[:3]):
        depart = 7 * 60 + i * 215 + seed % 40
        arrive = depart + minutes + i * 10
        flights.append({
            "id": f"{code.lower()}-{i + 1}", "airline": airline,
            "flightNumber": f"{code} {100 + (seed + 37 * i) % 900}",
            "origin": origin, "destination": destination, "date": label,
            "departureTime": f"{depart // 60 % 24:02d}:{depart % 60:02d}",
            "arrivalTime": f"{arrive // 60 % 24:02d}:{arrive % 60:02d}",
            "duration": f"{(minutes + i * 10) // 60}h {(minutes + i * 10) % 60:02d}m",
            "status": "Delayed" if (seed + i) % 5 == 0 else "On Time", "price": f"${189 + (seed + 61 * i) % 310}",
        })
    return flights


def hotels_for(place: str) -> list[dict[str, Any]]:
    """Three plausible hotels in ``place``, the same for the same place."""
    seed = _seed(place)
    return [{"id": f"hotel-{i + 1}", "name": name, "location": place,
             "rating": round(3.5 + ((seed >> i) % 15) / 10, 1), "price": f"${140 + (seed + 83 * i) % 360}"}
            for i, name in enumerate(HOTEL_NAMES[:3])]


def scenario(messages: Messages) -> Turn:
    """Decide the scripted model's next turn from the conversation (see the module docstring)."""
    clicked = [o for o in tool_outcomes(messages) if o.name == ACTION_TOOL and isinstance(o.input, Mapping)]
    if clicked and clicked[-1].input.get("name") == BOOK_ACTION:
        context = clicked[-1].input.get("context")
        flight = context if isinstance(context, Mapping) else {}
        return [Text(f"Booked flight {snippet(str(flight.get('flightNumber') or '?'), 20)} from "
                     f"{snippet(str(flight.get('origin') or '?'), 30)} to "
                     f"{snippet(str(flight.get('destination') or '?'), 30)} for "
                     f"{snippet(str(flight.get('price') or '?'), 20)}. (A scripted booking: nothing was bought.)")]
    outcomes = [o for o in tool_outcomes(messages) if o.name in ("search_flights", "search_hotels")]
    if outcomes:
        last = outcomes[-1]
        if last.name == "search_flights":
            flights = list(last.input.get("flights") or [])
            way = f" from {flights[0]['origin']} to {flights[0]['destination']}" if flights else ""
            return [Text(f"Here are {len(flights)} flights{way}. Would you like me to book one?")]
        hotels = list(last.input.get("hotels") or [])
        where = f" in {hotels[0]['location']}" if hotels else ""
        return [Text(f"Here are {len(hotels)} hotels{where}. Shall I reserve a room at one of them?")]
    words = user_text(messages)
    route = _ROUTE.search(words)
    if route or re.search(r"\bflights?\b", words, re.IGNORECASE):
        origin, destination = (_place(route.group(1)), _place(route.group(2))) if route else ("SEA", "SFO")
        return [Text(f"Searching flights from {origin} to {destination}."),
                call("search_flights", {"flights": flights_for(origin, destination, travel_date(words))})]
    found = _PLACE.search(words)
    if re.search(r"\b(hotels?|stay|room|rooms)\b", words, re.IGNORECASE):
        where = _place(found.group(1)) if found else "Seattle"
        return [Text(f"Looking for hotels in {where}."), call("search_hotels", {"hotels": hotels_for(where)})]
    return [Text("I can search flights (\"flights from SFO to JFK next Tuesday\") and hotels (\"hotels in downtown "
                 "Manhattan\"), and show the results as cards.")]


def build_agent(env: Mapping[str, str] | None = None) -> StrandsAgent:
    """The example's AG-UI agent; ``env`` (default ``os.environ``) picks the model."""
    strands_agent = Agent(model=model(scenario, env),
                          tools=[search_flights, search_hotels], system_prompt=SYSTEM_PROMPT, callback_handler=None)
    return StrandsAgent(strands_agent, name=NAME, description=DESCRIPTION)


agent = build_agent()
app = create_strands_app(agent)

if __name__ == "__main__":
    serve(app)
