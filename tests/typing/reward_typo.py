"""A misspelt reward event: `tests/test_typing.py` asserts mypy reports it."""

import reinfors_gym as rf

rf.Reward(tlie=1000.0)
