"""Model output and provider replies: parsed, refused with a typed error, never an AttributeError or KeyError."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from strategies import counted, fuzz, json_text, json_values

from agent_evolve.algorithms.common.edits import EditError
from agent_evolve.algorithms.common.generation import edit_from_action, skill_from_fields
from agent_evolve.llm.providers._common import MalformedReplyError, checked_completion, decode_arguments
from agent_evolve.llm.providers.bedrock_converse import BedrockConverseClient
from agent_evolve.llm.structured import extract_json

BEDROCK = BedrockConverseClient("bedrock/test", "test", client=object())


@fuzz(800)
@given(st.one_of(json_text(), st.builds(lambda a, b: f"Sure! ```json\n{a}\n``` and {b}", json_text(), json_text())))
def test_extract_json_returns_a_value_or_value_error(text: str) -> None:
    counted()
    try:
        extract_json(text)
    except ValueError:
        pass


@fuzz(400)
@given(st.one_of(json_text(), json_values))
def test_tool_arguments_always_decode_to_a_dict(raw: object) -> None:
    counted()
    assert isinstance(decode_arguments(raw), dict)


reply_shapes = st.one_of(json_values, st.fixed_dictionaries(
    {"output": st.one_of(json_values, st.fixed_dictionaries({"message": st.one_of(json_values, st.fixed_dictionaries(
        {"content": st.lists(st.one_of(json_values, st.fixed_dictionaries({"text": json_values}),
                                       st.fixed_dictionaries({"toolUse": json_values})), max_size=3)}))}))},
    optional={"usage": json_values, "stopReason": json_values}))


@fuzz(800)
@given(reply_shapes)
def test_any_bedrock_reply_is_a_completion_or_a_malformed_reply_error(response: object) -> None:
    counted()
    try:
        completion = checked_completion(BEDROCK._to_completion, response, provider="bedrock", model="test")
    except MalformedReplyError as exc:
        assert exc.retryable
        return
    assert isinstance(completion.text, str)
    completion.text.encode("utf-8")


@fuzz(500)
@given(st.dictionaries(st.sampled_from(["name", "description", "body", "action", "rule", "prompt", "content"]),
                       json_values, max_size=5))
def test_model_fields_become_a_valid_edit_or_an_edit_error(fields: dict) -> None:
    counted()
    try:
        skill_from_fields(fields, fallback_description="TRIGGER when fuzzing.")
    except EditError:
        pass
    try:
        edit_from_action(fields, {"source": "fuzz"})
    except EditError:
        pass
