"""The two-step password check other apps ask for before sensitive actions
(ownership transfer): PASSWORD_MISSING without a password, PASSWORD_HASH_INVALID for
a missing or wrong proof (clients probe with inputCheckPasswordEmpty first), FLOOD_WAIT
after repeated failures."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import two_step
from accounts_app.tl_convert_settings import srp_proof_from_tl


async def require_password(user_id: int, input_check) -> None:
    parts = srp_proof_from_tl(input_check)
    await sync_to_async(two_step.verify)(user_id, two_step.SrpProof(*parts) if parts else None)
