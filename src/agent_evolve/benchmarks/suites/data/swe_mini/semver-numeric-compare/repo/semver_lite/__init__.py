from semver_lite.compare import is_newer, parse

__all__ = ["is_newer", "parse"]
