"""The composition root (app.py): builds the dependencies and every service once."""
