"""The error hierarchy every domain module raises; the MCP adapter turns these into ToolError."""


class BrainError(Exception):
    """Base class: the message is written for the agent or user to act on."""


class InvalidInput(BrainError):
    """The caller passed something we refuse (empty content, unknown enum, malformed id...)."""


class NotFound(BrainError):
    """The referenced note, session or job does not exist in this project."""


class Conflict(BrainError):
    """The write collides with existing state (duplicate id, concurrent change)."""


class StoreUnavailable(BrainError):
    """Neo4j cannot be reached or timed out; a write may or may not have committed (retrying
    an add is safe: dedup matches the note if it did)."""


class ProviderError(BrainError):
    """An LLM or embedding provider failed; callers fall back where they can."""


class SetupError(BrainError):
    """The machine lacks something needed to provision a component (Java, Maven...)."""


class PortHeld(SetupError):
    """The shared service's port is held by another process: this service does not start."""
