"""Crontab expressions keep their standard meaning under APScheduler 3 (Sunday = 0 or 7)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kg_brain.base.errors import SetupError
from kg_brain.surfaces.leasing import cron_trigger

FRIDAY = datetime(2024, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize(("expression", "weekday"), [
    ("0 3 * * 0", "Sunday"), ("0 3 * * 7", "Sunday"), ("0 3 * * 1", "Monday"),
    ("0 3 * * sat", "Saturday"), ("0 3 * * 1-5", "Monday"),
])
def test_weekday_numbers_follow_cron(expression: str, weekday: str) -> None:
    fire = cron_trigger(expression).get_next_fire_time(None, FRIDAY.replace(day=2))
    assert fire is not None and fire.strftime("%A") == weekday and fire.hour == 3


def test_steps_are_not_read_as_weekdays() -> None:
    fire = cron_trigger("*/15 * * * *").get_next_fire_time(None, FRIDAY)
    assert fire == FRIDAY


def test_a_malformed_expression_names_itself() -> None:
    with pytest.raises(SetupError, match="0 3 \\* \\*"):
        cron_trigger("0 3 * *")
