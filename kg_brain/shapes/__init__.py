"""What the tools return (models.py)."""
