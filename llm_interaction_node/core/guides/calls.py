"""The console calls the guides name: the hand-back, the learn call and forget."""
from __future__ import annotations

# left out of the grammar unless the user's last words say "forget" (its gate's rule)
FORGET_ONLY_ASKED = frozenset({"forget_learned"})
# left out of the grammar where the user's last words were read and not as a request to learn
# (the learn gate refuses the call then: measured, a complaint answered with it, issue 44)
LEARN_FUNCTION = "learn_from_interaction"

WAIT_FUNCTION = "wait_for_trigger"
WAIT = f"{WAIT_FUNCTION}()"
LEARN_CALL = "learn_from_interaction()"
