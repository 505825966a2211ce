"""Pure functions over strings: the redaction gate and its detectors (redact/), failure
signatures (signature.py)."""
