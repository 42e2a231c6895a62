"""A server's request for input: the form read from its schema, the answers checked against
it (one sentence per bad field), URL mode's domain, and who answers (core.mcp.elicitation)."""

from __future__ import annotations

from typing import Any

from tui_chat.core.asker import REFUSE
from tui_chat.core.mcp.elicitation import (
    ElicitAnswer,
    ElicitRequest,
    Field,
    checked,
    domain,
    elicit_through,
    form_fields,
    url_problem,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 10},
        "days": {"type": "integer", "title": "Days", "minimum": 1, "maximum": 14,
                 "default": 3},
        "budget": {"type": "number", "title": "Budget"},
        "sure": {"type": "boolean", "title": "Sure?", "default": True},
        "city": {"type": "string", "title": "City", "enum": ["pune", "goa"],
                 "enumNames": ["Pune", "Goa"]},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
        "fish": {"type": "array", "title": "Fish", "minItems": 1, "maxItems": 2,
                 "items": {"anyOf": [{"const": "f1", "title": "Tuna"},
                                     {"const": "f2", "title": "Trout"},
                                     {"const": "f3", "title": "Salmon"}]}},
        "mail": {"type": "string", "format": "email", "title": "Email"},
        "born": {"type": "string", "format": "date", "title": "Birthday"},
    },
    "required": ["name", "city"],
}


def _fields() -> list[Field]:
    fields = form_fields(SCHEMA)
    assert isinstance(fields, list)
    return fields


def test_the_form_is_read_from_the_schema_in_its_order() -> None:
    fields = {field.name: field for field in _fields()}
    assert list(fields) == list(SCHEMA["properties"])
    assert [(f.kind, f.required) for f in fields.values()] == [
        ("string", True), ("integer", False), ("number", False), ("boolean", False),
        ("choice", True), ("choice", False), ("choices", False), ("string", False),
        ("string", False)]
    assert fields["city"].options == (("pune", "Pune"), ("goa", "Goa"))
    assert fields["hero"].options == (("h1", "Superman"),) and fields["hero"].title == "hero"
    assert fields["days"].initial() == "3" and fields["sure"].initial() is True
    assert fields["days"].bounds() == "1 to 14"
    assert fields["name"].bounds() == "2 to 10 characters"


def test_a_schema_no_form_can_show_is_said_not_guessed() -> None:
    nested = {"type": "object", "properties": {"address": {"type": "object"}}}
    assert form_fields(nested) == "its field 'address' is of a kind tui-chat cannot ask for"
    assert form_fields(None) == "the form it describes is not an object of fields"


def test_good_answers_become_the_content_and_empty_optional_fields_are_left_out() -> None:
    content, problems = checked(_fields(), {
        "name": "Asha", "days": "7", "budget": "", "sure": False, "city": "goa",
        "hero": None, "fish": ["f1"], "mail": "a@b.in", "born": "2001-02-03"})
    assert problems == {}
    assert content == {"name": "Asha", "days": 7, "sure": False, "city": "goa",
                       "fish": ["f1"], "mail": "a@b.in", "born": "2001-02-03"}


def test_each_bad_field_gets_one_sentence() -> None:
    _, problems = checked(_fields(), {
        "name": "", "days": "30", "budget": "lots", "city": "paris", "fish": ["f1", "f2", "f3"],
        "mail": "nope", "born": "3rd May"})
    assert problems == {
        "name": "Name is required.",
        "days": "Days must be 1 to 14.",
        "budget": "Budget must be a number.",
        "city": "City must be one of the choices offered.",
        "fish": "Fish takes at most 2 choices.",
        "mail": "Email must be an email address (name@example.com).",
        "born": "Birthday must be a date written YYYY-MM-DD.",
    }
    _, problems = checked(_fields(), {"name": "x", "days": "2.5", "city": "pune"})
    assert problems == {"name": "Name must be 2 to 10 characters long.",
                        "days": "Days must be a whole number."}


def test_url_mode_names_the_domain_and_opens_only_web_pages() -> None:
    assert domain("https://Login.Example.com:8443/a?b=c") == "login.example.com"
    assert url_problem("https://example.com/x") is None
    assert url_problem("file:///etc/passwd") is not None
    assert url_problem("javascript:alert(1)") is not None


async def test_an_asker_that_cannot_ask_declines() -> None:
    request = ElicitRequest("s", "Which city?", SCHEMA, None)
    assert await elicit_through(REFUSE, request) == ("decline", None)

    class Asks:
        async def elicit(self, request: ElicitRequest) -> ElicitAnswer:
            return "accept", {"name": request.message}

    assert await elicit_through(Asks(), request) == ("accept", {"name": "Which city?"})
