"""The write side, by concern: the write pipeline (write.py), bulk import (bulk.py), the
evolution queue (evolution.py), the sentences jobs (sentences.py), revisions (revisions.py),
full reads (reading.py), and what a note's stored text and vector are made of (text.py)."""
