"""One edit-kind table: every kind has one layer, and what a model may propose follows the enabled layers."""

from __future__ import annotations

import pytest

from agent_evolve.algorithms.common.edits import LAYER_OF, PROPOSABLE, Edit, EditError, proposable_kinds
from agent_evolve.algorithms.common.generation import edit_from_action
from agent_evolve.contract.manifest import LAYER_PATHS


def test_every_kind_maps_to_a_workspace_layer() -> None:
    assert set(LAYER_OF.values()) <= set(LAYER_PATHS)
    assert set(PROPOSABLE) <= set(LAYER_OF)
    assert Edit("add_memory").layer == "memory" and Edit("delete_skill").layer == "skills"


@pytest.mark.parametrize(
    ("layers", "expected"),
    [
        ({"prompts", "skills", "memory"}, ["add_rule", "write_prompt", "write_skill", "add_memory"]),
        ({"skills"}, ["write_skill"]),
        ({"prompts", "tools"}, ["add_rule", "write_prompt"]),
        (set(), []),
    ],
)
def test_proposable_kinds_follow_the_enabled_layers(layers: set[str], expected: list[str]) -> None:
    assert proposable_kinds(layers) == expected


def test_an_unknown_action_lists_the_proposable_kinds() -> None:
    with pytest.raises(EditError, match="add_rule, write_prompt, write_skill, add_memory"):
        edit_from_action({"action": "delete_everything"}, {})
